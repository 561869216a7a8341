"""The MQ DML sink (TiCDC ``cdc/sink/dmlsink/mq``) over a pluggable producer."""
