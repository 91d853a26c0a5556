package classify

import (
	"path"
	"regexp"
	"strings"
	"unicode"
)

// Artifact is a piece of code or structured text in a turn.
type Artifact struct {
	// Kind is code, document or data.
	Kind     string
	Language string
	// Filename is the file the artifact is, when the turn names it: in the
	// fence's info string, on the line before the fence, or in a path
	// comment on its first line.
	Filename string
	// Content is the text of the artifact (a code block's body without its
	// fences; for an edit, the replacement).
	Content string
	// Start and End are the byte offsets of the whole artifact (fences
	// included) in the turn's text.
	Start, End int
	// Edit is set for an aider SEARCH/REPLACE block: the text to find in
	// the file's latest version and what replaces it. An empty Search
	// creates the file.
	Edit *Edit
}

// Edit is one SEARCH/REPLACE block.
type Edit struct {
	Search, Replace string
}

// minStructured is how long (in bytes) a JSON value outside
// a fence must be to count as an artifact.
const minStructured = 200

var (
	// pathLike is a file's path: its names may hold what frameworks put
	// in them ("src/routes/+page.svelte", "app/(auth)/[id]/page.tsx").
	pathLike    = regexp.MustCompile(`^[\w@.~/\\+\[\]()-]*[\w\])-]\.[A-Za-z0-9]{1,10}$|^[\w@.~+\[\]()-]+(?:[/\\][\w@.~+\[\]()-]+)+$`)
	pathComment = regexp.MustCompile(`^\s*(?://|#|--|;|/\*|<!--)\s*(?:(?:file(?:name)?|path)\s*:\s*)?(\S+?)\s*(?:\*/|-->)?\s*$`)
	udiffTarget = regexp.MustCompile(`(?m)^\+\+\+ (?:b/)?(\S+)`)
)

// findArtifacts finds the artifacts of a turn: its fenced code blocks, and
// long structured text outside them.
func findArtifacts(text string, segs []segment) []Artifact {
	var out []Artifact
	for i, g := range segs {
		if !g.code {
			out = append(out, structured(g)...)
			continue
		}
		lang, file := infoLanguage(g.info)
		body := g.body
		intro := ""
		if i > 0 && !segs[i-1].code {
			intro = segs[i-1].text
		}
		if file == "" && intro != "" {
			file = pathLine(lastLine(intro))
		}
		if file == "" && intro != "" {
			file = introFile(intro, lang, strings.HasPrefix(g.text, " "))
		}
		if file == "" {
			// diff-fenced: the path is the block's first line.
			first, rest, _ := strings.Cut(body, "\n")
			if p := pathLine(first); p != "" && len(editBlocks(rest)) > 0 {
				file, body = p, rest
			} else if m := pathComment.FindStringSubmatch(first); m != nil && pathLike.MatchString(m[1]) && strings.Contains(m[1], ".") {
				file = cleanPath(m[1])
			}
		}
		if lang == "diff" || lang == "udiff" || lang == "patch" {
			if m := udiffTarget.FindStringSubmatch(body); m != nil && file == "" {
				file = cleanPath(m[1])
			}
		}
		if lang == "" {
			lang = languageOf(file)
		}
		base := Artifact{Kind: kindOf(lang), Language: lang, Filename: file, Content: body, Start: g.start, End: g.start + len(g.text)}
		edits := editBlocks(body)
		if len(edits) == 0 {
			if file == "" && answerBlock(lang, body, intro) {
				continue // the answer's example output, prose or figure: a turn's
			}
			if strings.TrimSpace(body) != "" {
				out = append(out, base) // an empty block holds nothing to keep
			}
			continue
		}
		for _, e := range edits {
			if strings.TrimSpace(e.Search) == "" && strings.TrimSpace(e.Replace) == "" {
				continue // an empty file made: nothing to keep
			}
			a := base
			a.Content = e.Replace
			a.Edit = &e
			if a.Language == "" {
				a.Language = languageOf(file)
				a.Kind = kindOf(a.Language)
			}
			out = append(out, a)
		}
	}
	return out
}

// editBlocks finds aider's SEARCH/REPLACE edit blocks, by the lines aider
// itself recognizes (aider/coders/editblock_coder.py): a line of 5 to 9
// '<' and " SEARCH", the text to find, a line of 5 to 9 '=', the text to
// put instead, a line of 5 to 9 '>' and " REPLACE". The texts keep their
// line endings but the one before the marker line that ends them. A block
// that is never closed (a truncated reply) is not an edit.
func editBlocks(body string) []Edit {
	if !strings.Contains(body, " SEARCH") {
		return nil
	}
	var out []Edit
	const (
		outside = iota
		search
		replace
	)
	state, start := outside, 0
	var find string
	for off := 0; off < len(body); {
		end := strings.IndexByte(body[off:], '\n')
		next := off + end + 1
		if end < 0 {
			end, next = len(body)-off, len(body)
		}
		line := strings.TrimRight(body[off:off+end], " \t\r")
		switch {
		case markerLine(line, '<', " SEARCH"):
			state, start = search, next // a block left open is dropped
		case state == search && markerLine(line, '=', ""):
			state, find, start = replace, chompLine(body[start:off]), next
		case state == replace && markerLine(line, '>', " REPLACE"):
			out = append(out, Edit{Search: find, Replace: chompLine(body[start:off])})
			state = outside
		}
		off = next
	}
	return out
}

// markerLine reports whether line is 5 to 9 of c and then suffix, the
// SEARCH line optionally closed by one more '>'.
func markerLine(line string, c byte, suffix string) bool {
	n := 0
	for n < len(line) && line[n] == c {
		n++
	}
	if n < 5 || n > 9 {
		return false
	}
	rest := line[n:]
	return rest == suffix || suffix == " SEARCH" && rest == " SEARCH>"
}

// chompLine drops the line ending at the end of s.
func chompLine(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r")
}

// infoLanguage reads a fence's info string: a language, a file name, or
// both ("go checkout/webhook.go", "python", "src/app.ts").
func infoLanguage(info string) (lang, file string) {
	for _, f := range strings.Fields(info) {
		f = strings.Trim(f, "{}")
		switch {
		case file == "" && (strings.ContainsAny(f, "/\\") || strings.Contains(f, ".")) && pathLike.MatchString(f):
			file = cleanPath(f)
		case lang == "" && isWord(f):
			lang = strings.ToLower(f)
		}
	}
	if lang == "" {
		lang = languageOf(file)
	}
	return lang, file
}

func isWord(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '+' || r == '#' || r == '-' || r == '_') {
			return false
		}
	}
	return s != ""
}

// pathLine returns the file name a line consists of, if it does: a path,
// perhaps in backticks or bold, perhaps with a colon.
func pathLine(line string) string {
	l := strings.TrimSpace(line)
	l = strings.TrimSuffix(l, ":")
	l = unmark(l)
	l = strings.TrimSuffix(l, ":")
	if l == "" || len(l) > 200 || !strings.Contains(l, ".") && !strings.ContainsAny(l, "/\\") {
		return ""
	}
	if !pathLike.MatchString(l) {
		return ""
	}
	return cleanPath(l)
}

// unmark is a name without the markdown around it: "`__init__.py`" is
// "__init__.py", "**app.py**" is "app.py"; a name's own underscores stay.
func unmark(l string) string {
	l = strings.TrimSpace(l)
	for _, m := range []string{"**", "__", "`", "*", "_"} {
		if len(l) > 2*len(m) && strings.HasPrefix(l, m) && strings.HasSuffix(l, m) {
			return unmark(l[len(m) : len(l)-len(m)]) // "**`app.py`**"
		}
	}
	return l
}

func cleanPath(p string) string {
	return strings.TrimPrefix(strings.ReplaceAll(p, "\\", "/"), "./")
}

func lastLine(s string) string {
	s = strings.TrimRight(s, "\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		return s[i+1:]
	}
	return s
}

var extLanguages = map[string]string{
	".go": "go", ".py": "python", ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "jsx",
	".ts": "typescript", ".tsx": "tsx", ".rb": "ruby", ".rs": "rust", ".java": "java", ".kt": "kotlin",
	".swift": "swift", ".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".hpp": "cpp", ".cs": "csharp",
	".php": "php", ".sh": "bash", ".bash": "bash", ".zsh": "bash", ".sql": "sql", ".html": "html", ".htm": "html",
	".css": "css", ".scss": "scss", ".json": "json", ".yaml": "yaml", ".yml": "yaml", ".toml": "toml",
	".md": "markdown", ".tf": "hcl", ".hcl": "hcl", ".dart": "dart", ".svelte": "svelte", ".astro": "astro",
	".vue": "vue", ".xml": "xml", ".v": "verilog", ".sv": "verilog", ".csv": "csv", ".txt": "text",
	".ini": "ini", ".env": "dotenv", ".lua": "lua", ".r": "r", ".scala": "scala", ".ex": "elixir", ".exs": "elixir",
}

func languageOf(file string) string {
	if file == "" {
		return ""
	}
	if l, ok := extLanguages[strings.ToLower(path.Ext(file))]; ok {
		return l
	}
	switch path.Base(file) {
	case "Dockerfile":
		return "dockerfile"
	case "Makefile":
		return "make"
	}
	return ""
}

// kindOf says what kind of artifact a language makes.
func kindOf(lang string) string {
	switch lang {
	case "json", "yaml", "toml", "csv", "xml", "ini", "dotenv":
		return "data"
	case "markdown", "md", "text", "txt", "":
		return "document"
	}
	return "code"
}

// structured finds the data of a run of prose: a JSON value on its own
// (a config, a payload). Lists and tables are not artifacts: an answer
// formatted with them is a turn, and its text is in the archive (issue
// 36: a project chat's memory held hundreds of "markdown documents", each
// a formatted section of an answer).
func structured(g segment) []Artifact {
	t := strings.TrimSpace(g.text)
	if len(t) >= minStructured && (t[0] == '{' && t[len(t)-1] == '}' || t[0] == '[' && t[len(t)-1] == ']') {
		s := g.start + strings.Index(g.text, t)
		return []Artifact{{Kind: "data", Language: "json", Content: t, Start: s, End: s + len(t)}}
	}
	return nil
}

// introLines is how many lines before a fence introFile reads.
const introLines = 3

// introFile is the file a block in lang is, by the lines before it: a
// heading that is the file's path or names one file ("#### `app/__init__.py`",
// "#### Custom CSS (`styles.css`)"), then perhaps a line that says what it
// does; an order to create it ("Create `models.py` to define …"); a line
// that shows, defines or rewrites it ("Here's my current `config.py` file:",
// "Define the models in `app/models.py`:", "Update `app/routes.py` to
// include the login route:"), or an item of a list that is its name, the
// block indented under it (inItem). A block after a line that adds to a part
// of a file ("In `app.py`, add …", "the relevant part of `app.py`:") is
// a piece of it, not the file.
func introFile(intro, lang string, inItem bool) string {
	lines := strings.Split(strings.TrimRight(intro, "\n"), "\n")
	seen := 0
	for i := len(lines) - 1; i >= 0 && seen < introLines; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" {
			continue
		}
		seen++
		if h, ok := strings.CutPrefix(l, "#"); ok {
			h = strings.TrimSpace(listMarker.ReplaceAllString(strings.TrimLeft(h, "#"), ""))
			if p := pathLine(h); p != "" {
				return p
			}
			return oneFile(h, lang) // a heading ends what introduces the block
		}
		if item := listMarker.ReplaceAllString(l, ""); inItem && item != l {
			if p := pathLine(item); p != "" && languageOf(p) != "" {
				return p // "1. **netlify.toml**:" and the block indented under it
			}
		}
		if m := createFile.FindStringSubmatch(l); m != nil {
			if p := pathLine(m[1]); p != "" && languageOf(p) != "" {
				return p
			}
		}
		if seen == 1 && showsFile.MatchString(l) && !partOfFile.MatchString(l) {
			if f := oneFile(l, lang); f != "" {
				return f
			}
		}
	}
	return ""
}

// oneFile is the one file a line names in backticks, when it names one
// and its language is lang's; "" otherwise.
func oneFile(line, lang string) string {
	found := ""
	for _, m := range quotedName.FindAllStringSubmatch(line, -1) {
		p := pathLine(m[1])
		if dotFile.MatchString(m[1]) {
			p = m[1] // ".prettierrc": a file of settings, whatever its language
		} else if p == "" || languageOf(p) == "" {
			continue // not a file of a kind known: "chat.completions.create"
		}
		if found != "" && found != p {
			return ""
		}
		found = p
	}
	if found != "" && !dotFile.MatchString(found) && !sameLanguage(lang, languageOf(found)) {
		return ""
	}
	return found
}

// sameLanguage reports whether a fence's language and a file's agree, or
// either is unknown.
func sameLanguage(a, b string) bool {
	a, b = languageAlias(a), languageAlias(b)
	return a == "" || b == "" || a == b
}

// languageAlias is the name languageOf gives the language a fence calls
// lang.
func languageAlias(lang string) string {
	switch l := strings.ToLower(lang); l {
	case "js", "jsx", "javascript", "mjs", "cjs":
		return "javascript"
	case "ts", "tsx", "typescript":
		return "typescript"
	case "yml", "yaml":
		return "yaml"
	case "sh", "bash", "shell", "zsh", "console":
		return "bash"
	case "py", "python", "python3":
		return "python"
	case "text", "txt", "plaintext", "plain", "dotenv", "env", "ini", "properties":
		return "" // plain text: any file of settings or words
	default:
		return l
	}
}

var (
	// createFile is an order to create a file named in backticks or bold.
	createFile = regexp.MustCompile(`(?i)^(?:\d+[.)]\s*)?(?:\*\*)?(?:first,?\s+|next,?\s+|then,?\s+)?(?:create|make|add|write)\s+(?:a\s+(?:new\s+)?(?:file\s+)?(?:called|named)\s+|(?:the|a new|a)\s+(?:file\s+)?|(?:a\s+)?file\s+)?[\x60*]+([^\x60*\s]+)[\x60*]+`)
	// showsFile is a line that shows or defines a whole file: "Here's my
	// current `config.py` file:", "Your `netlify.toml` should look like
	// this:", "Define the models in `app/models.py`:".
	showsFile = regexp.MustCompile(`(?i)\b(?:here(?:['’]s| is)|this is|below is|my|your|a sample|an example|the (?:full|complete|whole|final|current|updated) (?:file|contents?)|should look like|define|initialize|set up|create|write|update|modify|contents? of|ensure you have|make sure you have)\b`)
	// partOfFile is a line that changes a part of a file: "In `app.py`,
	// add …", "the relevant part of `app.py`:".
	partOfFile = regexp.MustCompile(`(?i)^(?:in|inside|within|to)\s+(?:your\s+|the\s+)?\x60|\b(?:add|insert|append|remove|tweak|extend)\b|\b(?:part|section|snippet|excerpt|portion|relevant)\b`)
	// quotedName is a name in backticks.
	quotedName = regexp.MustCompile(`\x60([^\x60\s]+)\x60`)
	// dotFile is a file whose name starts with a dot: ".env", ".prettierrc".
	dotFile = regexp.MustCompile(`^\.\w[\w.-]*$`)
)

// answerBlock reports whether a block unnamed by any file is part of an
// assistant's answer rather than something written to keep: what the
// answer's example prints or returns ("### Output", "the response will
// look like this:"), comments alone, a table, a figure drawn in
// characters, a few lines of prose in a fence.
func answerBlock(lang, body, intro string) bool {
	if introducesOutput(intro) {
		return true
	}
	bare := lang == "" || lang == "text" || lang == "plaintext" || lang == "txt"
	var lines, comments, rows, headings, prose, letters, marks int
	quoted := false // the line before is a quotation
	for l := range strings.Lines(body) {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		lines++
		wasQuoted := quoted
		quoted = strings.HasPrefix(l, `"`) || strings.HasPrefix(l, "“")
		switch {
		case strings.HasPrefix(l, "#") && (bare || lang == "markdown" || lang == "md"):
			headings++ // markdown's, not a comment
		case commentLine.MatchString(l):
			comments++
		case strings.HasPrefix(l, "|"):
			rows++
		case lines <= maxProseBlock && proseLike(strings.TrimLeft(l, `"'“‘*_>`)) && countWords(l) >= 5 && !strings.HasSuffix(l, ":") && !codeLine(l),
			wasQuoted && attribution.MatchString(l):
			prose++ // a sentence, or who said the quotation before it ("- Jane Doe, CEO of Acme")
		}
		for _, r := range l {
			switch {
			case unicode.IsLetter(r) || unicode.IsDigit(r):
				letters++
			case !unicode.IsSpace(r):
				marks++
			}
		}
	}
	switch {
	case lines == 0:
		return false
	case comments == lines:
		return true // comments alone: words, not code
	case bare && 2*rows >= lines:
		return true // a table of the answer
	case bare && lines >= 3 && letters < marks:
		return true // a figure drawn in characters
	case lines <= maxProseBlock && 2*prose > lines && headings == 0:
		return true // a few lines of prose in a fence
	}
	return false
}

// attribution is the line after a quotation that says who said it: "-
// Jane Doe, CEO of Acme", "— Jane Doe".
var attribution = regexp.MustCompile(`^(?:-|–|—|--)\s*\p{Lu}[\pL.'’-]+(?:\s+\p{Lu}[\pL.'’-]+){0,3}(?:,\s+\S.*)?$`)

// maxProseBlock is how many lines a fenced block of prose may have and be
// the answer's example: longer prose in a fence is a document.
const maxProseBlock = 12

var (
	// outputIntro is what says a block is what code prints or returns.
	outputIntro = regexp.MustCompile(`(?i)^#+\s*(?:example |sample |expected )?(?:output|response|result)s?\b|\b(?:output|response|result|log)s?\s+(?:will|would|should|might|may)\s+(?:look|be)\b|\byou(?:['’]ll| will| should| would)?(?: then)? (?:see|receive|get back)\b|\b(?:show|print|display|log|return)s? something like\b|\b(?:example|sample|expected) (?:output|response|result)s?\b|^(?:output|result|response)s?\s*:`)
	// commentLine is a line of a comment in the common languages.
	commentLine = regexp.MustCompile(`^(?://|#(?:[^!\w{]|$)|--\s|/\*|\*|<!--|;)`)
)

// introducesOutput reports whether the last lines of prose before a block
// (the last, or a heading and the line after it) say it is what code
// prints or returns.
func introducesOutput(intro string) bool {
	lines := strings.Split(strings.TrimRight(intro, "\n \t"), "\n")
	seen := 0
	for i := len(lines) - 1; i >= 0 && seen < 2; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" {
			continue
		}
		seen++
		if low := strings.ToLower(l); hasAny(low, "output", "response", "result", "log", "see", "receive", "get back", "something like") && outputIntro.MatchString(l) {
			return true
		}
		if strings.HasPrefix(l, "#") {
			break
		}
	}
	return false
}
