// Writes goavro's Avro binary of the golden row for each schema file given, as hex.
package main

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"strings"

	"github.com/linkedin/goavro/v2"
)

func value(name string, stringModes bool) interface{} {
	switch name {
	case "id", "tiny", "short", "int24", "long", "tinyunsigned", "shortunsigned", "int24unsigned":
		return int32(1)
	case "longlong", "longunsigned":
		return int64(1)
	case "longlongunsigned":
		if stringModes {
			return "1"
		}
		return int64(1)
	case "float":
		return float32(3.14)
	case "double":
		return float64(3.14)
	case "bit":
		return []byte{0x02, 0xab}
	case "decimal":
		if stringModes {
			return "129012.1230000"
		}
		return big.NewRat(129012123, 1000)
	case "tinytext", "mediumtext", "text", "longtext", "varchar", "varstring", "string":
		return "hello world"
	case "tinyblob", "mediumblob", "blob", "longblob", "varbinary", "varbinary1", "binary":
		return []byte("hello world")
	case "enum", "set":
		return "a"
	case "json":
		return `{"key": "value"}`
	case "date":
		return "2000-01-01"
	case "datetime":
		return "2015-12-20 23:58:58"
	case "timestamp":
		return "1973-12-30 15:30:00"
	case "time":
		return "23:59:59"
	case "year":
		return int32(1970)
	case "_tidb_op":
		return "c"
	case "_tidb_commit_ts":
		return int64(417318403368288260)
	case "_tidb_commit_physical_time":
		return int64(417318403368288260 >> 18)
	case "_tidb_row_level_checksum":
		return "3009655218"
	case "_tidb_corrupted":
		return false
	case "_tidb_checksum_version":
		return int32(1)
	}
	panic(name)
}

func main() {
	for _, path := range os.Args[1:] {
		text, err := os.ReadFile(path)
		if err != nil {
			panic(err)
		}
		var doc struct {
			Fields []struct {
				Name string `json:"name"`
			} `json:"fields"`
		}
		if err := json.Unmarshal(text, &doc); err != nil {
			panic(err)
		}
		codec, err := goavro.NewCodecWithOptions(string(text), &goavro.CodecOption{EnableStringNull: false})
		if err != nil {
			panic(err)
		}
		stringModes := strings.Contains(path, "checksum")
		native := map[string]interface{}{}
		for _, f := range doc.Fields {
			if strings.HasSuffix(f.Name, "nullable") {
				native[f.Name] = nil
				continue
			}
			native[f.Name] = value(f.Name, stringModes)
		}
		bin, err := codec.BinaryFromNative(nil, native)
		if err != nil {
			panic(err)
		}
		fmt.Printf("%s %s\n", path, hex.EncodeToString(bin))
	}
}
