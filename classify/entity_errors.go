package classify

import (
	"regexp"
	"slices"
	"strings"
)

var (
	errorPattern = regexp.MustCompile(`\b(?:E[A-Z]{3,}[A-Z0-9]*|[A-Z][A-Za-z]*(?:Error|Exception)|[A-Z]{1,3}\d{3,5})\b`)
	// The three kinds of errorPattern, each run only where it can match.
	errnoPattern     = regexp.MustCompile(`\bE[A-Z0-9_]{2,}\b`)
	errorNamePattern = regexp.MustCompile(`\b[A-Z][A-Za-z]*(?:Error|Exception)\b`)
	errorCodePattern = regexp.MustCompile(`\b[A-Z]{1,3}\d{3,5}\b`)
	httpStatus       = regexp.MustCompile(`(?i)\b(?:status|error|returns?|returned|returning|got|http|code)\s+(?:code\s+)?([45]\d\d)\b|\b([45]\d\d)\s+(?:error|unauthorized|forbidden|not found|bad request|internal server error|from)\b`)
)

// errnoNames are the error names of POSIX and Linux (errno.h) and the
// ones Node.js and npm add; an all-capitals word that starts with E is
// one of these or not an error ("EVERY", "ENTER"). Node's ERR_* codes are
// recognized by their prefix.
var errnoNames = set(
	"E2BIG", "EACCES", "EADDRINUSE", "EADDRNOTAVAIL", "EAFNOSUPPORT", "EAGAIN", "EALREADY", "EBADF", "EBADMSG",
	"EBUSY", "ECANCELED", "ECHILD", "ECONNABORTED", "ECONNREFUSED", "ECONNRESET", "EDEADLK", "EDESTADDRREQ",
	"EDOM", "EDQUOT", "EEXIST", "EFAULT", "EFBIG", "EHOSTDOWN", "EHOSTUNREACH", "EIDRM", "EILSEQ", "EINPROGRESS",
	"EINTR", "EINVAL", "EIO", "EISCONN", "EISDIR", "ELOOP", "EMFILE", "EMLINK", "EMSGSIZE", "EMULTIHOP",
	"ENAMETOOLONG", "ENETDOWN", "ENETRESET", "ENETUNREACH", "ENFILE", "ENOBUFS", "ENODATA", "ENODEV", "ENOENT",
	"ENOEXEC", "ENOLCK", "ENOLINK", "ENOMEM", "ENOMSG", "ENOPROTOOPT", "ENOSPC", "ENOSR", "ENOSTR", "ENOSYS",
	"ENOTBLK", "ENOTCONN", "ENOTDIR", "ENOTEMPTY", "ENOTRECOVERABLE", "ENOTSOCK", "ENOTSUP", "ENOTTY", "ENXIO",
	"EOPNOTSUPP", "EOVERFLOW", "EOWNERDEAD", "EPERM", "EPFNOSUPPORT", "EPIPE", "EPROTO", "EPROTONOSUPPORT",
	"EPROTOTYPE", "ERANGE", "EREMOTE", "EROFS", "ESHUTDOWN", "ESOCKTNOSUPPORT", "ESPIPE", "ESRCH", "ESTALE",
	"ETIME", "ETIMEDOUT", "ETOOMANYREFS", "ETXTBSY", "EUSERS", "EWOULDBLOCK", "EXDEV",
	// Node.js and npm
	"ENOTFOUND", "EAI_AGAIN", "EAI_FAIL", "ELIFECYCLE", "ERESOLVE", "EJSONPARSE", "EINTEGRITY", "EBADENGINE",
	"EBADPLATFORM", "ENOTSUP", "EPEERINVALID", "ENOAUDIT", "ENOLOCK", "E401", "E403", "E404", "E500",
)

// findErrors finds the error names and codes of the prose: errno names
// ("ENOENT", "ERR_MODULE_NOT_FOUND"), exception names ("TypeError") and
// codes ("TS2345"), in the order of the prose.
func findErrors(s *entityScan) {
	for _, m := range errorMatches(s.p) {
		if !s.taken(m[0], m[1]) {
			s.add(Entity{Text: s.p[m[0]:m[1]], Kind: "error", Start: m[0], End: m[1]})
		}
	}
}

// errorMatches returns the spans of the error names and codes of p,
// sorted by where they start. Each pattern runs only where a quick look
// says it can match.
func errorMatches(p string) [][]int {
	var errs [][]int
	if hasErrno(p) {
		for _, m := range errnoPattern.FindAllStringIndex(p, -1) {
			if w := p[m[0]:m[1]]; errnoNames[w] || strings.HasPrefix(w, "ERR_") && len(w) > 6 {
				errs = append(errs, m)
			}
		}
	}
	if hasAny(p, "Error", "Exception") {
		errs = append(errs, errorNamePattern.FindAllStringIndex(p, -1)...)
	}
	if hasCodeLike(p) {
		errs = append(errs, errorCodePattern.FindAllStringIndex(p, -1)...)
	}
	slices.SortFunc(errs, func(a, b []int) int { return a[0] - b[0] })
	return errs
}

// findHTTPStatuses finds the HTTP statuses of the prose that its words
// mark as such ("returned 404", "500 Internal Server Error"), as "HTTP
// 404".
func findHTTPStatuses(s *entityScan) {
	if !hasStatusLike(s.p) {
		return
	}
	for _, m := range httpStatus.FindAllStringSubmatchIndex(s.p, -1) {
		start, end := m[2], m[3]
		if start < 0 {
			start, end = m[4], m[5]
		}
		if !s.taken(start, end) {
			s.add(Entity{Text: "HTTP " + s.p[start:end], Kind: "error", Start: start, End: end})
		}
	}
}

// hasErrno reports whether s may hold an errno name: "E" and two more
// capital letters or digits.
func hasErrno(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if s[i] == 'E' && (isUpper(s[i+1]) || isDigit(s[i+1])) && (isUpper(s[i+2]) || isDigit(s[i+2])) {
			return true
		}
	}
	return false
}

func isUpper(c byte) bool { return c >= 'A' && c <= 'Z' }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// hasCodeLike reports whether s may hold an error code such as "E1234" or
// "TS2345": a capital letter and three digits.
func hasCodeLike(s string) bool {
	for i := 0; i+3 < len(s); i++ {
		if isUpper(s[i]) && isDigit(s[i+1]) && isDigit(s[i+2]) && isDigit(s[i+3]) {
			return true
		}
	}
	return false
}

// hasStatusLike reports whether s holds a number of three digits that
// starts with 4 or 5, on its own: a possible HTTP status.
func hasStatusLike(s string) bool {
	for i := 0; i+2 < len(s); i++ {
		if (s[i] == '4' || s[i] == '5') && isDigit(s[i+1]) && isDigit(s[i+2]) &&
			(i == 0 || !isDigit(s[i-1])) && (i+3 == len(s) || !isDigit(s[i+3])) {
			return true
		}
	}
	return false
}
