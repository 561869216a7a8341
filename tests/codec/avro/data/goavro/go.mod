module goavrogen

go 1.21

require github.com/linkedin/goavro/v2 v2.14.0
