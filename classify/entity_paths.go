package classify

import "strings"

// pathAt is the wordFinder of file paths: it finds the path that starts
// at word i, if one does, and covers the words it runs over
// ("Assets/Scripts/Core/Ship.cs" is four words).
func pathAt(s *entityScan, i int) (int, bool) {
	off := s.offs[i]
	t := pathToken(s.p, off, len(s.ws[i]))
	if t == "" {
		return i, false
	}
	s.add(Entity{Text: t, Kind: "path", Start: off, End: off + len(t)})
	for i+1 < len(s.ws) && s.offs[i+1] < off+len(t) {
		i++
	}
	return i, true
}

// pathToken returns the file path that starts at off in p, if one does.
func pathToken(p string, off, n int) string {
	end := off + n
	if end >= len(p) || p[end] != '/' && p[end] != '\\' && p[end] != '.' {
		return "" // words stop at these: a path goes on past its first word
	}
	for end < len(p) && (isPathByte(p[end])) {
		end++
	}
	t := strings.TrimRight(p[off:end], ".,:;")
	if !isPath(t, false) {
		return ""
	}
	return t
}

// isPath reports whether t names a file or a folder: a name with a known
// extension ("main.go", "docs/README.md"), or folders joined by slashes.
// In prose, one slash between two words is an alternative ("and/or",
// "phase/tasks"), not a path: a folder path needs two separators, or a
// leading or trailing one ("src/api/", "./build"); in backticks
// ("`src/components`") one will do. A dotted word without a known extension
// ("e.g", "rb.position", "3.14") is no path.
func isPath(t string, quoted bool) bool {
	if strings.Contains(t, "://") {
		return false
	}
	seps := strings.Count(t, "/") + strings.Count(t, "\\")
	switch {
	case languageOf(t) != "":
	case seps == 0:
		return false
	case seps >= 2 || quoted:
	case strings.HasPrefix(t, "/") || strings.HasPrefix(t, "./") || strings.HasPrefix(t, "~/") ||
		strings.HasSuffix(t, "/") || strings.HasSuffix(t, "\\"):
	default:
		return false
	}
	return pathLike.MatchString(t)
}

func isPathByte(c byte) bool {
	return c == '/' || c == '\\' || c == '.' || c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
