"""TiCDC's CSV protocol (``protocol=csv``): change files of the storage sink."""
