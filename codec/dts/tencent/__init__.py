"""Tencent Cloud DTS subscription in Protobuf (``subscribe.proto``, shipped beside this file):
``encoder`` writes Envelopes, ``decoder`` reads them back for ``tisink verify``."""
