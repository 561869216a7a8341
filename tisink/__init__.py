"""tisink: the TiCDC sink framework, encoder side, as one import package.

The layers are top-level folders of the checkout (the layout DESIGN.md fixes); this package
reaches them through committed symlinks (``tisink/codec -> ../codec`` ...), so a plain checkout
imports as ``tisink.codec`` and static tools (pyright, mypy) resolve every ``tisink.*`` name.
The wheel lays the same folders out under ``tisink/``.
"""
