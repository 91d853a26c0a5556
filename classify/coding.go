package classify

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// A coding agent's tool lines (aider's) say what it did to the project's
// files: an edit applied to a file, a commit made with its message, a
// commit undone. They are the history of the work; the rest of its lines
// (token counts, costs, prompts, notices) are chatter, kept in the archive
// and read for nothing else.

// Commit is a commit an agent made or undid.
type Commit struct {
	Hash, Message string
	// Files are the files it committed, as the tool's lines before it
	// say: the edits applied since the commit before, or the file of the
	// user's own edit it committed first.
	Files []string
	// Own: a commit of the user's own edits, which the agent made before
	// it applied its own.
	Own bool
}

var (
	appliedLine   = regexp.MustCompile(`^(?:> )?Applied edit to (\S.*?)\s*$`)
	committingOwn = regexp.MustCompile(`^(?:> )?Committing (\S.*?) before applying edits\.?\s*$`)
	commitLine    = regexp.MustCompile(`^(?:> )?Commit ([0-9a-f]{7,40}) (\S.*?)\s*$`)
	undoneLine    = regexp.MustCompile(`^(?:> )?Removed: ([0-9a-f]{7,40})(?: (\S.*?))?\s*$`)
)

// readToolLines reads an agent's tool output for the edits it applied,
// the commits it made, each with its files, and those it undid. Edits
// applied after the last commit are uncommitted.
func readToolLines(text string, s *Signals) {
	if !strings.Contains(text, "Applied edit to") && !strings.Contains(text, "Commit") && !strings.Contains(text, "Removed: ") {
		return
	}
	var pending, own []string
	for line := range strings.Lines(text) {
		line = strings.TrimRight(line, "\r\n")
		if m := appliedLine.FindStringSubmatch(line); m != nil {
			p := cleanPath(m[1])
			if !contains(pending, p) {
				pending = append(pending, p)
			}
			if !contains(s.Applied, p) {
				s.Applied = append(s.Applied, p)
			}
		} else if m := committingOwn.FindStringSubmatch(line); m != nil {
			own = append(own, cleanPath(m[1]))
		} else if m := commitLine.FindStringSubmatch(line); m != nil {
			c := Commit{Hash: m[1], Message: m[2], Files: pending}
			if len(own) > 0 && len(pending) == 0 {
				c.Files, c.Own = own, true
			}
			own, pending = nil, nil
			s.Commits = append(s.Commits, c)
		} else if m := undoneLine.FindStringSubmatch(line); m != nil {
			s.Undone = append(s.Undone, Commit{Hash: m[1], Message: m[2]})
		}
	}
	s.Uncommitted = pending
}

// agentCommandLine is a user's line that is a command to the agent, not
// words to it: "/add src/app.py", "/undo", "/run npm test".
var agentCommandLine = regexp.MustCompile(`^/[a-z][\w-]*\b`)

// chatModes are the agent's commands that carry words to it: "/ask why
// …".
var chatModes = []string{"/ask ", "/architect ", "/code "}

// Request is what a user asked an assistant to do, as the turn says it.
type Request struct {
	// Text is the ask: the turn's first sentence that asks for something,
	// as written.
	Text string
}

// findRequest reads a user's turn to an agent for what it asks to be
// done: not a command to the agent ("/add …", "/undo"), a confirmation
// ("y", "yes"), the agent's own prompt to fix lint errors, or a paste of
// an error with no words around it (a problem, found as such). The ask is
// the turn's first sentence that asks (an order, a question, a want),
// past what leads to it: a role given to the assistant ("You are …"), a
// greeting, the symptom it is about, a lead-in to a paste or a list, an
// ask of work it does not name ("make these changes:"). A turn that asks
// nothing by these cues (a complaint, pasted advice or output, a symptom
// or a plan announced in another language) is no request.
func findRequest(text string, sents []sentence, english bool) *Request {
	t := strings.TrimSpace(text)
	lower := strings.ToLower(t)
	switch {
	case t == "", agentCommandLine.MatchString(t) && !slices.ContainsFunc(chatModes, func(m string) bool { return strings.HasPrefix(lower, m) }),
		strings.HasPrefix(lower, "# fix any errors below"), confirmation[strings.Trim(lower, ".! ")], agentPrompt.MatchString(t):
		return nil
	}
	for i, s := range sents {
		if i == maxAskLook {
			break
		}
		body := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s.text), ">"))
		for _, cmd := range chatModes {
			body = strings.TrimSpace(strings.TrimPrefix(body, cmd))
		}
		if !askOpening.MatchString(strings.ToLower(body)) {
			body = strings.TrimSpace(vocative.ReplaceAllString(body, "")) // "DeepSeek, …", not "Okay, …"
		}
		low := strings.ToLower(body)
		if !strings.Contains(body, " ") || countWords(body) < 2 || traceStart.MatchString(body) || outputLine.MatchString(body) || hintLine.MatchString(low) ||
			sourceLine.MatchString(body) || sourceLocation.MatchString(body) || shellLine(low) || roleLine.MatchString(low) || agentPrompt.MatchString(body) {
			continue
		}
		if !asks(low) && !foreignAsk.MatchString(low) && (english || !verbLast.MatchString(low)) {
			continue
		}
		if chatCommand.MatchString(low) || frameish.MatchString(body) || leadFollowing.MatchString(low) || strings.HasSuffix(body, ":") ||
			unnamedWork.MatchString(low) || logLabel.MatchString(body) || answerHow.MatchString(low) || codeLine(body) ||
			strings.HasSuffix(low, "?") && (countWords(low) <= 4 || deixisQuestion.MatchString(low)) || triedReport.MatchString(low) {
			// "drop src/a.js" without its slash, "Factory react
			// refresh:6", "Now do the following.", "Make these changes:",
			// "update it accordingly", "Debug message: ERROR: …", "think
			// out loud", a line of code, "What does this mean?", "run -v
			// does not help": what it asks is what follows, or nothing.
			continue
		}
		if danglingLead.MatchString(low) || countWords(low) < 5 && leansOnObject(low) || vagueFix(low) {
			return nil // "fix it", "fix the error": it names nothing
		}
		return &Request{Text: clipRequest(body)}
	}
	return nil
}

// clipRequest is the text of a request, cut at a word to maxRequest bytes.
func clipRequest(s string) string {
	if len(s) <= maxRequest {
		return s
	}
	return strings.TrimSpace(s[:strings.LastIndexByte(s[:maxRequest], ' ')]) + "…"
}

// maxRequest bounds the text of a request, in bytes; maxAskLook, how many
// of a turn's sentences are read for its ask.
const (
	maxRequest = 240
	maxAskLook = 6
)

var (
	// askOpening is what may come before an ask: "OK, now", "Great, next".
	askOpening = re(`^(?:(?:ok(?:ay)?|great|good|cool|nice|perfect|thanks|thank you|awesome|alright|now|next|then|also|and|so|but|hi|hello|hey|honestly|actually|just|maybe|perhaps|instead|right|well|yes|no)\b[,!.]*\s*)+`)
	// midAsk is an ask after what leads to it, in one sentence: "I gave
	// you the reference, can you move …".
	midAsk = re(`[,;:]\s*(?:(?:and|so|but|now|then)\s+)?(?:please\s+)?(?:can|could|would|will) (?:you|we)\b`)
	// askCue is an ask that is no bare order: a question to the
	// assistant, a want, a proposal.
	askCue = re(`^(?:please\b|(?:can|could|would|will|do) you\b|(?:can|could|shall) we\b|(?:i|we) (?:want|need|would like|['’]d like)\b|(?:we|you) (?:can|could|should|must|need to|have to|will|['’]ll)\b|you['’]ll\b|i['’]d like\b|we (?:should|must|have to)\b|let['’]?s\b|lets\b|how (?:do|can|would|should|to)\b|is (?:it|there) (?:possible|a way)\b|why (?:is|does|doesn['’]t|isn['’]t|do|are)\b|what (?:is|are|does|should|would)\b|where (?:is|are|do|does|should)\b)`)
	// roleLine gives the assistant a role: "You are a senior …", "Act as
	// …", in the languages of the sessions' users.
	roleLine = re(`^(?:you are|you['’]re|act as|acting as|as an? (?:expert|senior)|agis en tant|tu es|vous êtes|actúa como|eres|du bist|sen\s)`)
	// vocative is the name an ask is addressed to: "DeepSeek, …".
	vocative = regexp.MustCompile(`^[A-Z][\w.-]*, `)
	// agentPrompt is an agent's question to the user, echoed into the
	// user's turn with the answer: "Add src/a.py to the chat?".
	agentPrompt = regexp.MustCompile(`^(?:Add .+ to the chat|Add URL to the chat|Create new file|Run shell commands?|Attempt to fix lint errors|Fix lint errors in .+|Allow creation of new file|Drop .+ from the chat|Allow edits to file .*|Edit the files)\?`)
	// sourceLine is a line of source pasted without a fence: "import {
	// a } from 'b';", "const x = 1;".
	sourceLine = regexp.MustCompile(`(?i)^(?:import|export|from|const|let|var|def|class|function|return|public|private)\b.*(?:[;{}]\s*$|\bfrom\s+['"]|\s=\s)`)
	// hintLine is a compiler's hint that follows its error: "Try
	// correcting the name …", "consider borrowing here".
	hintLine = re(`^(?:try|consider) \w+ing\b`)
	// bareFix asks to fix what it does not say: "please fix", "fix it".
	bareFix = re(`^(?:please\s+)?(?:fix|debug|solve|resolve)(?:\s+(?:it|this|that|them))?(?:\s+please)?[.!]*$`)
	// foreignAsk is an ask in a language other than English, by its
	// words of asking and the verbs of work a request starts with: in
	// French, Spanish, Portuguese, Italian, German and Turkish.
	foreignAsk = regexp.MustCompile(`(?:^|\s)(?:peux-tu|pouvez-vous|merci de|il faut|je veux|je voudrais|s'il te pla[iî]t|s'il vous pla[iî]t|corrige[zr]?|ajoute[zr]?|crée[zr]?|fais|faites|vérifie[zr]?|modifie[zr]?|supprime[zr]?|remplace[zr]?|implémente[zr]?|répare[zr]?|mets|mettez|analyse[zr]?|por favor|puedes|quiero|necesito|agrega|añade|crea|haz|cambia|elimina|corrija|adicione|crie|faça|quero|correggi|aggiungi|per favore|voglio|bitte|füge|erstelle|ändere|korrigiere|entferne|kannst du|lütfen|istiyorum|düzelt\w*|ekle\w*|oluştur\w*|değiştir\w*|kaldır\w*|yardımcı ol\w*|yap(?:ar mısın|alım|ın|)|assure-toi|remets|annule[zr]?|localise[zr]?|repère|gère|utilise[zr]?|rajoute[zr]?|enlève|retire[zr]?|affiche[zr]?|ajuste[zr]?|optimise[zr]?|refais|garde[zr]?|intègre[zr]?|déplace[zr]?|renomme[zr]?)(?:[\s.,!?:;'’]|$)`)
	// chatCommand is an agent's command to add or drop files typed
	// without its slash: "drop src/app.js", "add a.py b.py".
	chatCommand = regexp.MustCompile(`^(?:drop|add|read|read-only)\s+(?:\S*[/.\\]\S*\s*)+$`)
	// frameish is a frame of a trace, its function's words and a line
	// number: "Factory react refresh:6".
	frameish = regexp.MustCompile(`^(?:[\w.$<>]+ ){0,3}[\w.$<>]+:\d+(?::\d+)?$`)
	// leadFollowing is a lead-in to a list: "Now you'll do the following."
	leadFollowing = regexp.MustCompile(`\b(?:the\s+)?following\s*[.:]?$`)
	// unnamedWork is an ask of work it does not name, which the lines
	// after it give: "Add these imports at the top:", "update it
	// accordingly", "fais ces modifs", "şu düzeltmeleri yap", "fix this
	// error", "you saw the errors, fix them" ("hataları gördün").
	unnamedWork = regexp.MustCompile(`\b(?:this|these|those|that|the following|the above)\s+(?:\w+\s+)?(?:description|changes?|imports?|fixes|modifications|revisions|updates|instructions|steps|documentation|suggestions|items|points|requirements|specification|spec|plan|improvements|tasks?)\b|\b(?:this|these|those|the above)\s+(?:issues?|problems?|matter|errors?|bugs?)\b|\baccordingly\b|\byou (?:saw|see|can see)\b|(?:^|\s)(?:gördün|gördüğün)\b|(?:^|\s)bu\s+konu\w*|\b(?:write|make|apply|do|implement) the changes\b|(?:^|\s)(?:ces|cette|ceci|cela)\s+(?:modifs?|modifications|changements|corrections|étapes|points|instructions)\b|(?:^|\s)(?:şu|bu|aşağıdaki)\s+(?:\S+\s+){0,3}?(?:güncelleme|düzeltme|revizyon|değişiklik|adım|madde)|(?:^|\s)(?:bunu|bunları|şunu|şunları|onu|onları)\s|\b(?:this|that|these|those)\s+(?:diagram|output|one|ones|example|log|logs|screenshot|image|thing|things|stuff)\b`)
	// logLabel is a line of a log, a label and its level: "Debug message:
	// ERROR : …".
	logLabel = regexp.MustCompile(`^[\w ]{1,30}:\s*(?:ERROR|FATAL|Error|Exception)\b|^(?i:info|warn|warning|error|debug|note|hint)\s+-\s`)
	// deixisQuestion is a question about what another turn shows: "What
	// does this mean?", "does this help?", "what is happening here?".
	deixisQuestion = regexp.MustCompile(`\b(?:this|that|it|here|these|those)\s*\??$|\b(?:does|do|did|is|was|are) (?:this|that|it)\b`)
	// triedReport is a report that what was tried did not help: "run -v
	// does not help".
	triedReport = regexp.MustCompile(`\b(?:does not|doesn['’]t|did not|didn['’]t) (?:help|change anything|work either)\b`)
	// answerHow is an ask about how to answer, not what to do: "think
	// out loud".
	answerHow = regexp.MustCompile(`\b(?:think (?:out loud|aloud|step by step)|chain of thought)\b`)
	// verbLast is a sentence of a verb-final language (Turkish) that ends
	// on an order: the verb's bare stem ("… kaydırma özelliği getir."), or
	// "let's" ("… bir çözüm bulalım.").
	verbLast = regexp.MustCompile(`(?:\s|^)(?:\pL+(?:alım|elim)|getir|çevir|uygula|kur|sağla|taşı|göster|bul|çiz|kapat|sil|yaz|yap|ekle|düzelt|kaldır|değiştir|oluştur|ayarla|güncelle|engelle|bağla|ayır|geliştir)\s*[.!:]*\s*$`)
	// shellWord is a command's name a shell line starts with.
	shellWord = set("python", "python3", "py", "cat", "aider", "npm", "npx", "yarn", "pnpm", "git", "cd", "ls", "pip", "pip3", "node", "curl",
		"sudo", "docker", "bash", "sh", "cargo", "flutter", "dart", "dotnet", "mvn", "gradle", "pytest", "uv", "poetry", "rm", "cp", "mv",
		"mkdir", "echo", "export", "source", "conda", "brew", "apt", "wget", "chmod", "kubectl", "terraform", "gcloud", "firebase",
		"grep", "find", "sed", "awk", "tail", "head", "touch", "make", "go", "javac", "bundle", "rails", "composer", "xcodebuild", "deno", "bun")
	// vagueObject are the words of a fix's object that name nothing: "fix
	// the error", "fix these issues".
	vagueObject = set("the", "this", "that", "these", "those", "it", "them", "all", "any", "remaining", "same", "current", "following",
		"above", "below", "error", "errors", "issue", "issues", "bug", "bugs", "problem", "problems", "backend", "frontend", "build",
		"lint", "type", "compile", "new", "other", "last", "again", "please", "now", "and", "too", "also", "properly")
)

// asks reports whether a sentence, in lower case, asks for something: an
// order that starts with a verb ("add …", "prevent …"), a question to the
// assistant, a want, "please".
func asks(low string) bool {
	low = askOpening.ReplaceAllString(low, "")
	if askCue.MatchString(low) || midAsk.MatchString(low) || strings.Contains(low, "please") || strings.HasSuffix(low, "?") {
		return true
	}
	w, _, _ := strings.Cut(low, " ")
	return imperatives[w] || orders[w]
}

// orders are the verbs a request for work starts with, beyond those of
// imperatives.
var orders = set("refactor", "rename", "move", "replace", "display", "prevent", "differentiate", "upgrade", "downgrade", "scan", "search",
	"load", "render", "set", "build", "convert", "extract", "split", "merge", "modify", "improve", "optimize", "optimise", "handle",
	"allow", "support", "enable", "disable", "hide", "run", "install", "read", "look", "find", "generate", "integrate", "connect",
	"test", "debug", "clean", "simplify", "revert", "undo", "restore", "increase", "decrease", "reduce", "align", "center", "centre",
	"sort", "filter", "limit", "review", "analyze", "analyse", "document", "insert", "append", "wire", "hook", "call", "return",
	"log", "print", "save", "store", "export", "import", "parse", "validate", "migrate", "port", "deploy", "resolve", "solve",
	"adjust", "apply", "configure", "setup", "set-up", "draw", "fill", "go", "continue", "proceed", "finish", "complete",
	"get", "fetch", "pull", "push", "commit", "inspect", "identify", "verify", "confirm", "trace", "rewrite", "redo",
	"swap", "switch", "translate", "wrap", "expose", "pass", "send", "shorten", "lengthen", "rework", "tidy", "reorganize",
	"reorganise", "restructure", "drop", "introduce", "mark", "edit", "copy", "paste", "attach", "bind", "map", "plot", "compute",
	"calculate", "count", "measure", "animate", "resize", "scale", "rotate", "zoom", "open", "close", "link", "unlink")

// shellLine reports a line, in lower case, that is a command to a shell
// typed into the chat: "python validate.py", "cat > a.py << 'eof'",
// "aider --model …".
func shellLine(low string) bool {
	w, rest, ok := strings.Cut(low, " ")
	if !ok || !shellWord[w] {
		return false
	}
	arg, _, _ := strings.Cut(strings.TrimSpace(rest), " ")
	return strings.HasPrefix(arg, "-") || strings.ContainsAny(arg, "./<>|=") || shellWord[arg] || subcommand[arg]
}

// subcommand is a word that follows a command's name in a shell line:
// "npm install", "git status".
var subcommand = set("install", "run", "add", "init", "status", "diff", "log", "push", "pull", "checkout", "commit", "start", "test", "build", "sync", "clone")

// vagueFix reports an ask to fix something it does not name: "fix the
// error", "please fix these issues".
func vagueFix(low string) bool {
	low = askOpening.ReplaceAllString(low, "")
	if bareFix.MatchString(low) {
		return true
	}
	m := fixRequest.FindStringSubmatch(low)
	if m == nil {
		return false
	}
	for _, w := range strings.Fields(strings.Trim(m[1], ".!? ")) {
		if !vagueObject[strings.Trim(w, ".,!?")] {
			return false
		}
	}
	return true
}

// confirmation are the answers to an agent's question that ask nothing.
var confirmation = set("y", "n", "yes", "no", "ok", "okay", "sure", "go ahead", "continue", "proceed", "do it", "yep", "nope", "a", "s", "d", "<blank>")

// In a coding agent's session, what the user pastes or says is broken is
// a problem of the work: an error line of a build, a lint report or a
// log, pasted without a fence as often as with one; a sentence that says
// the program does not do what it should ("single clicks are not
// handled", "the button doesn't open the picker").
var (
	// codingErrorWords are what codingError needs, one of them: a quick
	// look before it runs.
	codingErrorWords = []string{"error", "exception", "fail", "cannot", "can't", "can’t", "couldn", "unable", "not found", "defined",
		"expected", "invalid", "denied", "refused", "missing", "duplicate", "already", "no such", "timed out", "not allowed", "not permitted"}
	// codingError is a line of output that reports an error, in lower
	// case (matched on the line lowered: faster than case folding).
	codingError = regexp.MustCompile(`\b(?:error|exception|fails|failed|failure|cannot|can['’]t|couldn['’]t|unable to|not found|is not defined|not defined|undefined|expected|unexpected|invalid|denied|refused|missing|duplicate|already declared|already defined|defined multiple times|isn['’]t defined|no such|timed out|not allowed|not permitted)\b`)
	// errorName is an error's name ("TypeError", "AuthenticationError").
	errorName = regexp.MustCompile(`\b[A-Z]?\w*(?:Error|Exception)\b`)
	// outputLine is a line a program wrote rather than a person: it
	// starts with an error's word, a mark or a place.
	outputLine = regexp.MustCompile(`^(?:[^\pL\s]|(?:[A-Z][\w.]*)?(?:Error|Exception)\b|ERROR|Failed|FAILED|Fatal|FATAL|Uncaught|Unhandled|Warning|WARN|npm ERR|Type error|Syntax error|Module not found|Cannot|error\b|export '|Unexpected)`)
	// lintPlace is a lint report's place in a file: "src/a.tsx(26,25):".
	lintPlace = regexp.MustCompile(`[\w./-]+\.\w{1,6}\(\d+,\d+\)`)
	// sourceExcerpt is a line of source an error shows: "17 │ …",
	// "> 4 | import …".
	sourceExcerpt = regexp.MustCompile(`^(?:>\s*)?\d+\s*[│|]`)
	// fixRequest is a request to fix something named ("fix the sign in
	// error, it says 504 gateway timeout"): what it names is a problem.
	fixRequest = re(`^(?:please\s+)?(?:can you\s+)?(?:fix|resolve|solve|debug)\s+(?:the\s+|this\s+|that\s+)?(.+)$`)
	// troubleWord is a word of what went wrong, which a thing to fix must
	// name beyond "the error".
	troubleWord = re(`\b(?:error|errors|bug|issue|problem|crash|exception|timeout|fails?|failing|broken|\d{3})\b`)
	// bugWords are what bugCue needs, one of them: a quick look first.
	bugWords = []string{"n't", "n’t", "not", "never", "cannot", "wrong", "incorrect", "broken", "fail", "crash", "freez", "hang", "glitch", "bug", "jump",
		"unable", "slow", "lag", "choppy", "stutter", "flicker", "warp", "stretch", "distort", "misalign", "overlap", "cut off", "off-screen", "off screen",
		"division by zero", "out of range", "out of bounds", "infinite loop", "memory leak", "nothing", "weird", "strange"}
	// bugCue is a sentence that says the program misbehaves, lowered.
	bugCue = regexp.MustCompile(`\b(?:doesn['’]t|does not|didn['’]t|did not|isn['’]t|is not|aren['’]t|are not|wasn['’]t|was not|weren['’]t|were not|won['’]t|can['’]t|cannot|not being|never)\s+(?:\w+\s+){0,2}?(?:work|show|display|load|render|draw|drawn|appear|print|printed|open|close|save|update|respond|handle|handled|prompt|trigger|fire|run|compile|build|start|move|scroll|zoom|translate|translated|correct|properly|right|visible|found|defined|recogni[sz]ed)\w*\b|\b(?:wrong|incorrect|broken|not correct|not properly|not working|fails|failing|crash(?:es|ed|ing)?|freezes|hangs|glitch(?:es|y)?|buggy|jumps)\b|\bunable to \w+|\b(?:very|too|really|so|extremely|super) (?:slow|laggy|choppy)\b|\b(?:lags|laggy|lagging|stutter(?:s|ing)?|flicker(?:s|ing)?|warped|stretched|distorted|misaligned|overlapp?ing|cut off|off[- ]screen|division by zero|out of (?:range|bounds)|infinite loop|memory leak)\b|\bnothing (?:happens|happened|is happening|shows|appears|changes|changed)\b|\b(?:weird|strange)\b`)
)

// announced is a line that announces the error on the next one: a bare
// "Error:" (SWC, Rust), Flutter's "The following RangeError was thrown
// during paint():"; its first group "Error", or its second the thrown
// type.
var announced = regexp.MustCompile(`^(?:\[[^\]]{1,20}\]\s*)?(?:(Error):?|The following (\w+)(?: object)? was thrown\b.*:)$`)

// trailingFix is an ask to fix that ends a sentence saying the symptom:
// ", please fix", ", fix the error", ". How to fix?".
var trailingFix = re(`[,;:.]?\s+(?:so\s+)?(?:please\s+)?(?:(?:fix|solve|resolve)(?:\s+(?:it|this|that|the (?:error|issue|problem|bug)s?))?|how (?:to|do i|can i) fix(?: it| this)?)\s*(?:please)?\s*[.!?]*$`)

// framedPlace is the place a framed excerpt of source names (SWC's, in
// Next.js builds): "╭─[/app/route.ts:17:1]".
var framedPlace = regexp.MustCompile(`^╭─\[([^\]]+)\]`)

// foreignBugWords are what foreignBug needs, one of them.
var foreignBugWords = []string{"marche", "fonctionne", "plante", "cass", "funciona", "fall", "roto", "funktioniert", "stürzt", "kaputt",
	"quebr", "funziona", "çalış", "hatalı", "bozuk", "çök", "donuyor"}

// foreignBug is, in the languages users of coding agents write most
// beside English, a sentence (lowered) that says the program misbehaves:
// "ne marche pas", "no funciona", "funktioniert nicht", "çalışmıyor".
// Go's \b is ASCII's, so a word starts after a space or a mark.
var foreignBug = regexp.MustCompile(`(?:^|[\s(,;:'’])(?:ne (?:marche|fonctionne)(?:nt)? (?:pas|plus)|plante(?:nt)?\b|cass[ée]e?s?\b|no funciona|falla\b|fallan\b|roto\b|funktioniert nicht|stürzt|kaputt|não funciona|quebr|non funziona|çalışmıyor|çalışmaz|hatalı|bozuk|çök(?:üyor|tü)|donuyor)`)

// MaxLabel is how long a node's label is, in bytes: the graph clips a
// longer one after its first words.
const MaxLabel = 200

// maxCodingProblems bounds the error lines a pasted log gives.
const maxCodingProblems = 2

// findCodingProblems finds the problems of a turn of a coding session:
// in a tool's output, the error lines that point into a source file or
// name an error; in a user's turn, those and the sentences that say the
// program misbehaves (not an order: "make sure it doesn't crash").
func findCodingProblems(text string, sents []sentence, role string) []Problem {
	var out []Problem
	seen := map[string]bool{}
	add := func(line, kind string) {
		line = Clip(strings.TrimSpace(strings.Trim(strings.TrimSpace(line), "│╷╵|>")), 200)
		// One error at two places is one problem.
		if k := MessageKey(line); line != "" && !seen[k] && len(out) < maxCodingProblems+len(sents) {
			seen[k] = true
			out = append(out, Problem{Summary: line, Kind: kind, Code: errorCode(line)})
		}
	}
	lines := 0
	next := ""   // what a header line ("Error:", "The following assertion was thrown …:") names, the line after it
	placed := -1 // the problem whose place the next line may show ("╭─[app/route.ts:17:1]")
	for line := range strings.Lines(text) {
		l := strings.TrimSpace(strings.Trim(strings.TrimSpace(line), "│╷╵|×>"))
		if i := placed; i >= 0 && l != "" {
			placed = -1
			if m := framedPlace.FindStringSubmatch(l); m != nil && i < len(out) {
				out[i].Summary += " (" + path.Base(m[1]) + ")"
				continue
			}
		}
		if header := next; header != "" && l != "" {
			// The message a header announced: "Error:" then "× Expected a
			// semicolon"; Flutter's "The following assertion was thrown
			// building X:" then "Incorrect GestureDetector arguments.".
			next = ""
			if lines < maxCodingProblems && countWords(l) >= 3 && !errorName.MatchString(l) && !sourceExcerpt.MatchString(strings.TrimSpace(line)) {
				if header != "Error" {
					l = header + ": " + l
				}
				if _, ok := codingProblem(Problem{Summary: l}); ok {
					n := len(out)
					if add(l, "trace"); len(out) > n {
						placed = n
					}
					lines++
					continue
				}
			}
		}
		if strings.HasSuffix(l, ":") || l == "Error" { // a header may be: the quick look before the pattern
			if m := announced.FindStringSubmatch(l); m != nil {
				next = m[1] + capitalize(m[2])
				continue
			}
		}
		if lines >= maxCodingProblems || len(l) < 8 || !errorLine(l) || sourceExcerpt.MatchString(strings.TrimSpace(line)) || countWords(l) < 3 {
			continue
		}
		// A line of a list or a heading is output only when it reads as
		// an error: "1. max error < 0.5%" is a criterion.
		output := role == "user" && outputLine.MatchString(l) && !listMarker.MatchString(l) && !strings.HasPrefix(l, "**") && !strings.HasPrefix(l, "#")
		if !sourceLocation.MatchString(l) && !lintPlace.MatchString(l) && !errorName.MatchString(l) && !output {
			continue
		}
		if m := fixRequest.FindStringSubmatch(l); m != nil {
			l = m[1] // "fix AxiosError: …": what to fix
		}
		if _, ok := codingProblem(Problem{Summary: l}); !ok {
			continue // a line refused does not take a problem's place
		}
		add(l, "trace")
		lines++
	}
	if role != "user" {
		return out
	}
	for _, s := range sents {
		text := strings.TrimSpace(s.text)
		for _, cmd := range chatModes {
			text = strings.TrimSpace(strings.TrimPrefix(text, cmd)) // "/ask it is not printed": it
		}
		if strings.Contains(strings.ToLower(text), "fix") { // the quick look before the pattern
			if m := trailingFix.FindStringIndex(text); m != nil && m[0] > 0 {
				text = text[:m[0]] // "I am unable to stay on the page, fix the error": the symptom
			}
		}
		lower := strings.ToLower(text)
		if m := fixRequest.FindStringSubmatchIndex(text); m != nil && troubleWord.MatchString(lower[m[2]:]) && countWords(text[m[2]:]) >= 3 && saysWhich(text[m[2]:]) {
			add(capitalize(text[m[2]:]), "error") // "fix the sign in error, …": the sign in error
			continue
		}
		english := hasAny(lower, bugWords...) && bugCue.MatchString(lower)
		if !english && !(hasAny(lower, foreignBugWords...) && foreignBug.MatchString(lower)) || imperative(lower) || strings.HasSuffix(lower, ":") || ifLead.MatchString(lower) || countWords(lower) < 4 || !readsAlone(lower) {
			continue
		}
		if !english {
			// The clause after a colon that says it is the problem
			// ("DeepSeek, on a un problème : les pages plantent …"); a
			// sentence too long for a label is cut in its middle, as cut
			// at its end, one of a verb-final language would lose its
			// verb.
			if _, after, ok := strings.Cut(text, ": "); ok && len(after) <= MaxLabel && foreignBug.MatchString(strings.ToLower(after)) {
				text = capitalize(after)
			} else if len(text) > MaxLabel {
				text = clipMiddle(text, MaxLabel)
			}
		}
		add(text, "error")
	}
	return out
}

// codingProblem is p as a coding session keeps it, and whether it keeps
// it at all: not a line of code or of a list of advice, a heading, a
// compiler's hint, a stack frame alone, or the agent's own trouble with
// its model's provider or its tools (a rate limit, a lost connection, an
// install of its own that failed). A provider's error keeps what its
// message says, not the JSON around it.
func codingProblem(p Problem) (Problem, bool) {
	s := strings.TrimSpace(p.Summary)
	p.Setup = strings.Contains(s, "litellm.") || providerException.MatchString(s)
	if m := providerMessage.FindStringSubmatch(s); m != nil {
		p.Setup = true
		name := errorName.FindString(s)
		s = strings.TrimSpace(strings.TrimSuffix(strings.ReplaceAll(m[1], `\"`, `"`), "…"))
		if name != "" {
			s = name + ": " + s
		}
		p.Summary = Clip(s, 200)
	}
	s = compactError(s)
	p.Summary = s
	body := listMarker.ReplaceAllString(s, "")
	low := strings.ToLower(body)
	w, _, _ := strings.Cut(low, " ")
	switch {
	case strings.HasPrefix(s, "#"), strings.HasPrefix(s, ":"), checkLead.MatchString(low), agentTrouble.MatchString(s), sourceLine.MatchString(body), pastedCode.MatchString(body),
		codeLine(body) && !errorSentence.MatchString(low), hintLine.MatchString(low) || hint.MatchString(low), stackFrame.MatchString(body), frameAlone.MatchString(body), strings.HasSuffix(body, ":") && countWords(body) < 4,
		body != s && (imperatives[w] || orders[w] || requirement.MatchString(low)), orderLead.MatchString(low) && (imperatives[w] || orders[w]),
		banner.MatchString(s), placeOnly(body), commitLine.MatchString(body), commentLine.MatchString(body), strings.HasSuffix(body, ":"),
		genericHeader.MatchString(low), shellLine(low), body != s && foreignAsk.MatchString(low), conditional.MatchString(low), danglingLead.MatchString(low) && !strings.HasPrefix(low, "there"):
		return p, false
	}
	return p, true
}

// placeOnly reports an error's header that says where and nothing of
// what: "ERROR in ./src/Heatmap.js 21:37-44".
func placeOnly(line string) bool {
	n := 0
	for _, w := range strings.Fields(line) {
		if !strings.ContainsAny(w, "/\\0123456789") && !placeWords[strings.ToLower(strings.Trim(w, ":,.()[]"))] {
			n++
		}
	}
	return n < 2
}

// placeWords are the words of an error's header beside its place.
var placeWords = set("error", "errors", "warning", "exception", "in", "at", "on", "line", "file", "column", "")

// codingProblems are the problems of ps a coding session keeps.
// errorLine reports whether a line says an error: in words ("cannot
// find", "failed"), by its name and message ("AxiosError: …"), or by its
// name where the line says it was met ("I get a TypeError").
func errorLine(l string) bool {
	if low := strings.ToLower(l); hasAny(low, codingErrorWords...) && codingError.MatchString(low) {
		return true
	}
	if !hasAny(l, "Error", "Exception") {
		return false // what the patterns below need, found fast
	}
	return errorMessage.MatchString(l) || errorName.MatchString(l) && errorMet.MatchString(l)
}

// clipMiddle cuts s to at most n bytes by words of its middle: "its
// first words … its last words".
func clipMiddle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	head := s[:n/2]
	if i := strings.LastIndexByte(head, ' '); i > 0 {
		head = head[:i]
	}
	tail := s[len(s)-(n-len(head)-len(" … ")):]
	if i := strings.IndexByte(tail, ' '); i >= 0 {
		tail = tail[i+1:]
	}
	return head + " … " + tail
}

// compactError says an error line message first, so that a label clipped
// to its first words keeps what went wrong: a log's time stamp dropped,
// the file and place it starts with moved to its end, a long quoted type
// shortened ("Argument of type '{ id?: string; …' is not assignable to
// parameter of type 'Item' (src/a.tsx(25,13))").
func compactError(s string) string {
	s = logStamp.ReplaceAllString(s, "")
	if m := leadingPlace.FindStringSubmatch(s); m != nil {
		s = m[2] + " (" + path.Base(strings.ReplaceAll(m[1], "\\", "/")) + ")" // the file's name says which
	}
	return longQuote.ReplaceAllStringFunc(s, func(q string) string {
		r := []rune(q)
		return string(r[:maxQuote]) + "…" + string(r[len(r)-1])
	})
}

// maxQuote is how much of a long quoted span an error line keeps.
const maxQuote = 24

var (
	// logStamp is a log line's stamp: "[  +16 ms] ", "[ERROR:flutter/…(41)] ".
	logStamp = regexp.MustCompile(`^\[[^\]]{1,64}\]\s*`)
	// trailingPlace is the place compactError puts at a message's end.
	trailingPlace = regexp.MustCompile(`\s\([^()]*(?:\([^()]*\))?[^()]*\)$`)
	// leadingPlace is an error line that starts with the file and place:
	// "lib/main.dart:82:33: Error: …", "src/a.tsx(25,13): error TS2345: …".
	leadingPlace = regexp.MustCompile(`^((?:\.{0,2}/)?[\w./\\@-]+\.\w{1,6}(?::\d+(?::\d+)?|\(\d+,\d+\)))\s*:?\s+(\S.{8,})$`)
	// longQuote is a quoted span longer than two maxQuote.
	longQuote = regexp.MustCompile(`'[^'\n]{48,}'`)
)

func codingProblems(ps []Problem) []Problem {
	out := ps[:0]
	seen := map[string]bool{}
	for _, p := range ps {
		// One error at two places, found twice, is one problem.
		if p, ok := codingProblem(p); ok && !seen[MessageKey(p.Summary)] {
			seen[MessageKey(p.Summary)] = true
			out = append(out, p)
		}
	}
	return out
}

// MessageKey is an error's message without where it is, to tell the same
// error at two places, or reported again.
func MessageKey(s string) string {
	s = strings.TrimSpace(trailingPlace.ReplaceAllString(s, ""))
	return strings.ToLower(placeOf.ReplaceAllString(logStamp.ReplaceAllString(s, ""), ""))
}

// PlaceFile is the file an error's place names ("main.dart" of "…
// (lib/main.dart:58:53)" or of "lib/main.dart:58:53: Error: …"), or "":
// the same message in two files is two problems, at two places of one
// file one.
func PlaceFile(s string) string {
	f := strings.TrimSpace(trailingPlace.FindString(s))
	if f != "" {
		f = f[1:]
	} else if f = placeOf.FindString(s); f == "" || f[0] == '(' {
		return ""
	}
	if i := strings.IndexAny(f, ":("); i >= 0 {
		f = f[:i]
	}
	return path.Base(strings.TrimSpace(f))
}

var (
	// providerMessage is the message of a model provider's error, in
	// the JSON the agent prints: {"error":{"message":"…"}}.
	providerMessage = regexp.MustCompile(`"message"\s*:\s*"((?:[^"\\]|\\.)+)(?:"|…?$)`)
	// providerException is the error of a model provider's client, as
	// the agent's model library names it: "OpenrouterException - …".
	providerException = regexp.MustCompile(`\b[A-Z][a-z]+Exception - `)
	// agentTrouble is a coding agent's own trouble, not the project's:
	// its model's provider refused or went away, a retry, an install it
	// ran for itself.
	agentTrouble = regexp.MustCompile(`(?i)\b(?:rate.?limit|RateLimitError|APIConnectionError|ServiceUnavailableError|InternalServerError|overloaded|retrying in|Installation process exited|Could not install packages|Read-only file|Failed to retrieve content|Provider returned error|HTTP error occurred)\b`)
	// pastedCode is a line of code an error was pasted with, beyond
	// what codeLine knows: "throw new Error('…')", "\"key\": \"value\",",
	// "Debug.LogError(\"…\")".
	pastedCode = regexp.MustCompile(`^(?:throw|return|raise|console\.|print\()|^["'{}]|[;{,]\s*$|^[\w.]+\(.*\)\s*;?$`)
	// hint is, beside hintLine, a line that says what to do about an
	// error, not what went wrong: "To suppress this error, …".
	hint = re(`^(?:to (?:suppress|fix|resolve|handle|avoid|disable|enable|ignore)\b|hint:|help:|note:|see )`)
	// frameAlone is a frame of a trace, the function and its place:
	// "OpenAIError error.ts:5".
	frameAlone = regexp.MustCompile(`^[\w.$<>]+ [\w./-]+\.\w{1,6}:\d+(?::\d+)?$`)
	// orderLead is an order's opening, a verb and what it acts on: "run
	// this to …", "check the …".
	orderLead = re(`^\w+ (?:this|that|these|those|the|a|an|it|your|my|all)\b`)
	// banner is a line of a framework's banner: "══╡ EXCEPTION CAUGHT … ╞══".
	banner = regexp.MustCompile(`[═─━=*#~-]{4,}`)
	// errorSentence is what an error message says in words, which a line
	// that starts as code may still be: "export 'Heatmap' was not found in
	// 'recharts'".
	errorSentence = re(`\b(?:was|were|is|are|does|do|has|have|could|can)(?: not|n['’]t)\b`)
	// checkLead is an item of a checklist, what to verify, not what
	// went wrong: "Verify: no flickering", "Expected: …".
	checkLead = re(`^(?:verify|check|expected|expect|goal|test|acceptance|criteria)\s*:`)
	// requirement is what an item of a specification or a test's criteria
	// says must hold: "2. Convergence: the error must shrink by 16x".
	requirement = re(`\b(?:must|should|shall|needs? to|(?:not )?allowed|required|expected to|(?:flag|report|list|check|verify|ensure)\s+(?:any|all|missing|each|every|that))\b`)
	// errorMessage is an error told by its name: "AxiosError: …".
	errorMessage = regexp.MustCompile(`\b[A-Z]?\w*(?:Error|Exception)\s*:`)
	// errorMet is how a line tells an error named in it was met: "I get a
	// TypeError when …".
	errorMet = re(`\b(?:get|gets|got|getting|throws?|threw|thrown|raised?|raises|see|seeing|shows?|showing|hit|hitting)\b`)
	// placeOf is where an error is: "app.py:12:5", "(25,13)".
	placeOf = regexp.MustCompile(`\S+:\d+(?::\d+)?:?|\(\d+,\d+\):?`)
	// ifLead is a sentence that opens on a condition: "so if the API
	// answers sooner, …".
	ifLead = regexp.MustCompile(`^(?:(?:so|and|but|then|also),?\s+)?if\s`)
	// genericHeader is the header of an error report alone, which says
	// not what failed: "Failed to compile", "Unhandled Runtime Error".
	genericHeader = regexp.MustCompile(`^(?:failed to compile|unhandled runtime error|runtime error|build failed|compilation failed|compile error|syntax error|type error|errors?|exception|error occurred|an error occurred)[.!]?$`)
	// conditional is a line that says what to do if trouble comes, not
	// trouble met: "If the log contains 'error', fix the code."
	conditional = re(`^(?:if|unless|in case)\b[^,]{0,120},\s*(?:then\s+)?(?:fix|run|try|check|retry|make|do|update|repeat|rerun|add|use|stop|report|tell)\b`)
	// listMarker is the mark of an item of a list: "- ", "3. ", "* ".
	listMarker = regexp.MustCompile(`^(?:[-*•]\s+|\d{1,2}[.)]\s+)`)
)

// saysWhich reports whether what a fix names says which error it is: a
// code or a number, an error's name, a quote, or what it says ("it says
// 504 gateway timeout"), beyond "the error on the settings page".
func saysWhich(s string) bool {
	return strings.ContainsAny(s, "0123456789:'\"`") || errorName.MatchString(s) || says.MatchString(s)
}

// says is a clause that tells what an error says.
var says = re(`\b(?:says|saying|said|shows|showing|reads|message)\b`)

// capitalize is s with its first letter in upper case.
func capitalize(s string) string {
	r := []rune(s)
	if len(r) > 0 {
		r[0] = unicode.ToUpper(r[0])
	}
	return string(r)
}

// AskTerms are the terms of a request that say what it is about: its
// analyzed terms, once each, less the words any ask has (an order's verb,
// "can", "please", "error"). Two requests that share most of them ask for
// the same thing.
func (a *Analyzer) AskTerms(text string) []string {
	var out []string
	for _, t := range a.termsOf(text) {
		if !imperatives[t.Word] && !orders[t.Word] && !askWords[t.Word] && !contains(out, t.Term) {
			out = append(out, t.Term)
		}
	}
	return out
}

// askWords are words of asking, beyond the verbs of orders.
var askWords = set("can", "could", "would", "will", "please", "want", "need", "like", "error", "errors", "issue", "issues", "problem",
	"problems", "bug", "bugs", "now", "also", "again", "just", "sure", "code", "file", "files", "way", "something", "thing", "things")

// A user's request to a coding agent fixes choices as it asks: the tool
// or library to use ("Use tailwind for styling", "do the styling with
// just grid css"), what to go back to ("go back to the horizontal
// carousel"), the stack a specification lists ("Framework: Next.js").
var (
	// useChoice is an order to use something: "use X (for Y)", "do the
	// styling with X", "build it with X", "write it in X".
	useChoice = re(`^(?:please\s+)?(?:use|(?:do|build|make|write|implement|style)\s+(?:it|the\s+\w+|your\s+\w+|them)?\s*(?:with|using|in)(?:\s+just|\s+only)?)\s+(?P<obj>(?:[^.;!?\n]|\.[\w/])+)`)
	// switchChoice is a move from one thing to another: "switch from
	// Redux to Zustand", "passer de Webpack à Vite".
	switchChoice = re(`\b(?:switch(?:ing)?|migrat(?:e|ing)|passer|pasar|cambiar|wechseln|umsteigen)\s+(?:\w+\s+){0,3}?(?:from|de|von)\s+(?P<alt>[^,;.!?:]{1,40}?)\s+(?:to|à|a|zu|auf)\s+(?P<obj>(?:[^.;!?,:\n]|\.[\w/])+)`)
	// backTo is a return to what was before: "go back to X", "revert
	// back to X".
	backTo = re(`\b(?:go|going|switch|revert|roll)\s+back\s+to\s+(?P<obj>(?:[^.;!?\n]|\.[\w/])+)`)
	// specChoice is a line of a specification that names a part of the
	// stack: "Framework: Next.js with App Router".
	// usesChoice is a thing asked for by what it uses: "one function
	// trace_ray(…) that uses kgeo's raytracer".
	usesChoice = re(`\b(?:that|which)\s+(?:uses|relies on|is built on)\s+(?P<obj>(?:[^.;!?,\n—–]|\.[\w/])+)`)
	// onlyChoice is a sentence that opens on what alone may be used:
	// "Flat numpy only — no classes".
	onlyChoice = re(`^(?P<obj>[\w][\w .+#/-]{1,30}?)\s+only\s*(?:[—–,;:.!]|-\s|$)`)
	// insteadChoice is one thing chosen over another in passing: "AI
	// Assessment (instead of analysis)", "…, a list rather than a grid".
	insteadChoice = re(`(?:^|[,(;:]\s*)(?P<obj>[^,(;:.!?]{2,40}?)\s*\(?\s*(?:instead of|rather than)\s+(?P<alt>[^,();:.!?]{2,40})`)
	// qualityOnly is an outcome that asks for a quality, not a thing:
	// "proper TypeScript types", "defined interfaces".
	qualityOnly = re(`^(?:proper|properly|correct|correctly|defined|appropriate|better|good|clean|cleaner|consistent|robust|clear)\b`)
	// nameChoice is a name given: "call it jugb", "name the app Pixie".
	nameChoice = re(`\b(?:call|name)\s+(?:it|id|them|this|the\s+(?:\w+\s+){0,2}?)\s*["'\x60]?(?P<obj>[\pL\d][\pL\d_.-]*)["'\x60]?\s*[.!]?$`)
	// gluedSentence is a sentence's end with no space after it, and the
	// next one's first letters.
	gluedSentence = regexp.MustCompile(`[a-z)]\.[A-Z][a-z]`)
	specChoice    = re(`^(?:[-*•]\s*)?(?P<key>framework|styling|language|database|db|package manager|storage|state management|backend|frontend|orm|build tool|runtime|ui library|component library|test(?:ing)? framework|hosting|deployment|auth(?:entication)?|icons|charts?|css|bundler|server|api)\s*:\s*(?P<obj>(?:[^.;!?\n]|\.[\w/])+)`)
)

// noChoice is what an order to use names when it chooses nothing: "use
// any libraries you need", "not required", a package pip found cached.
var noChoice = re(`^\s*(?:any|some|whatever|whichever|not|no|none|cached|the same|one)\b`)

// libraryName is a library named as its package is: "chart.js",
// "socket.io", which vague takes for a field of an object.
var libraryName = regexp.MustCompile(`^[\w-]+\.(?:js|jsx|ts|css|io|net|py)$`)

// codingDecisions are the choices a user's turn to a coding agent fixes.
func codingDecisions(sents []sentence) []Decision {
	var out []Decision
	for _, whole := range sents {
		// "…the application.Use tailwind for styling": two sentences.
		for _, part := range splitGlued(whole.text) {
			if d, ok := codingDecision(part); ok {
				out = append(out, d)
			}
		}
	}
	return out
}

// A choice is a pattern of a choice a request makes, and the words it
// needs (in the sentence lowered): a quick look before the pattern runs.
type choice struct {
	p   *regexp.Regexp
	may func(low string) bool
}

// choices are the patterns of the choices of a request, most specific
// first.
var choices = []choice{
	{specChoice, func(low string) bool { return strings.Contains(low, ":") }},
	{useChoice, func(low string) bool {
		w, _, _ := strings.Cut(strings.TrimSpace(strings.TrimPrefix(low, "please")), " ")
		return useVerbs[w]
	}},
	{switchChoice, func(low string) bool { return hasAny(low, "from ", " de ", " von ") }},
	{backTo, func(low string) bool { return strings.Contains(low, "back") }},
	{usesChoice, func(low string) bool { return hasAny(low, "uses", "relies", "built") }},
	{onlyChoice, func(low string) bool { return strings.Contains(low, "only") }},
	{insteadChoice, func(low string) bool { return hasAny(low, "instead", "rather") }},
}

// useVerbs are the words useChoice starts with.
var useVerbs = set("use", "do", "build", "make", "write", "implement", "style")

// splitGlued splits text where a sentence ends with no space after it.
func splitGlued(text string) []string {
	var out []string
	for {
		m := gluedSentence.FindStringIndex(text)
		if m == nil {
			return append(out, text)
		}
		out, text = append(out, text[:m[0]+2]), text[m[0]+2:]
	}
}

// codingDecision is the choice a sentence of a request fixes, if any.
func codingDecision(sent string) (Decision, bool) {
	text := strings.TrimSpace(stripListMark(sent))
	low := askOpening.ReplaceAllString(strings.ToLower(text), "")
	text = text[len(text)-len(low):]
	named := hasAny(low, "call", "name")
	if !named && !slices.ContainsFunc(choices, func(c choice) bool { return c.may(low) }) {
		return Decision{}, false // no word any choice needs: most sentences, found fast
	}
	if codeLine(text) || sourceLine.MatchString(text) || strings.HasSuffix(strings.TrimSpace(text), "?") || answerHow.MatchString(low) {
		return Decision{}, false // a question, or how to answer: nothing chosen
	}
	if named {
		if m := nameChoice.FindStringSubmatch(text); m != nil {
			// "call it jugb": a name is a choice of one word, whatever it is.
			return Decision{Sentence: sent, Outcome: "the name " + m[nameChoice.SubexpIndex("obj")]}, true
		}
	}
	var obj, why string
	var alts []string
	for _, c := range choices {
		p := c.p
		if !c.may(low) {
			continue
		}
		if m := p.FindStringSubmatch(text); m != nil {
			obj = m[p.SubexpIndex("obj")]
			if k := p.SubexpIndex("key"); k >= 0 {
				why = "the project's " + strings.ToLower(m[k])
			}
			if k := p.SubexpIndex("alt"); k >= 0 {
				alts = append(alts, strings.TrimSpace(m[k]))
			}
			break
		}
	}
	if obj == "" || strings.ContainsAny(obj, "=<>{}") || noChoice.MatchString(obj) {
		return Decision{}, false
	}
	if w, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(obj)), " "); strings.HasPrefix(text, strings.TrimSpace(obj)) && (imperatives[w] || orders[w] || w == "let" || w == "keep") {
		return Decision{}, false // "let the API handle it instead of …": an order, not a thing
	}
	outcome, _ := outcomePhrase(obj, false)
	if outcome == "" || personal(outcome) || unnamed(outcome) || vague(outcome) && !libraryName.MatchString(outcome) || countWords(outcome) > 5 ||
		strings.Count(outcome, "`")%2 == 1 || qualityOnly.MatchString(outcome) {
		return Decision{}, false // a broken name, or a quality asked for ("proper types"), not a thing chosen
	}
	d := Decision{Sentence: sent, Outcome: outcome, Rationale: why, Alternatives: alts}
	if why == "" {
		d.Rationale = rationale(obj)
	}
	return d, true
}

// maxPrescribed bounds the fixes a user's turn prescribes.
const maxPrescribed = 6

// prescribedFixes are the fixes a user's turn to a coding agent prescribes
// as it asks for a fix: after "Fix X:", each sentence or item that says
// how it must be ("it should compare against a 4000-step run", "S0 should
// be zero", "transfer_matrix comes from coeffs, not integrate"). A fix
// first told by the user is the solution there; the change that applies
// it is a change.
func prescribedFixes(sents []sentence) []Solution {
	var out []Solution
	subject, asked := "", false
	for _, s := range sents {
		body := strings.TrimSpace(stripListMark(strings.TrimSpace(s.text)))
		if m := fixLead.FindStringSubmatch(body); m != nil {
			asked, subject, body = true, strings.TrimSpace(m[1]), strings.TrimSpace(m[2])
		}
		if !asked || body == "" {
			continue
		}
		low := strings.ToLower(body)
		if strings.HasPrefix(low, "it ") && subject != "" {
			body = subject + body[2:] // "Fix the check: it should …": the check should …
			low = strings.ToLower(body)
		}
		if !prescription.MatchString(low) || countWords(body) < 4 || strings.HasSuffix(body, "?") || strings.HasSuffix(body, ":") ||
			danglingLead.MatchString(low) || pastedLead.MatchString(low) || codeLine(body) {
			continue
		}
		if out = append(out, Solution{Sentence: Clip(capitalize(body), 200)}); len(out) == maxPrescribed {
			break
		}
	}
	return out
}

var (
	// fixLead opens an ask to fix something with how: "Fix X: …".
	fixLead = re(`^(?:please\s+)?(?:fix|correct)\s+([^:]{2,80}):\s*(.*)$`)
	// pastedLead is a sentence about what was pasted with it, not a fix:
	// "The example response shows the format we should validate
	// against."
	pastedLead = re(`^(?:the|this|that) (?:example|above|following|previous)\b`)
	// prescription is how a thing must be: "should", "must", "comes from
	// X, not Y", "instead of".
	prescription = re(`\b(?:should|must|needs? to|has to|have to|instead of|rather than|comes? from)\b|,\s*not\s+\w`)
)
