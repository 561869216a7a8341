"""tisink: the TiCDC sink framework, encoder side, as one import package.

The installed wheel holds every layer under this package (``tisink.model`` ... ``tisink.feed``,
the command line beside them). A source checkout keeps the layers as top-level folders (the
layout DESIGN.md fixes), so there this package also looks one folder up for its sub-packages.
"""

from pathlib import Path

_here = Path(__file__).resolve().parent
if not (_here / "model").is_dir() and (_here.parent / "model" / "__init__.py").is_file():
    __path__.append(str(_here.parent))
