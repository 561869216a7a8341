"""The root exception of tisink, and the configuration error every layer raises."""


class TisinkError(Exception):
    """Root of every error tisink raises on purpose; catch this at the edges.

    ``refusal`` (a class flag, as aiokafka's errors carry ``retriable``): the input or the
    settings are what the tool will not accept, not a failure of the run, so the command line
    says "refused" and exits 2 even when the play found it part way."""

    refusal = False


def refusal_in(err: BaseException | None) -> TisinkError | None:
    """The first refusal along ``err``'s causes (``raise ... from``), or None."""
    seen: set[int] = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        if isinstance(err, TisinkError) and err.refusal:
            return err
        err = err.__cause__ or err.__context__
    return None


class ConfigError(TisinkError):
    """A setting is unknown or out of range; the message names where it was read and the key."""

    refusal = True
