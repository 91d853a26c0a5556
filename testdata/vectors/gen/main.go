package main

import (
	"fmt"

	"github.com/smg-memory/smg/spec"
)

func main() { fmt.Println(spec.Version) }
