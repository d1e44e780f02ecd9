package config

import (
	"net"
	"net/url"
	"strings"
)

// urlMask stands for the userinfo of a URL in messages (url.URL.Redacted's
// mark).
const urlMask = "xxxxx"

// RedactURL returns raw fit for an error message or a log line: the userinfo
// (user:password@) of a URL becomes "xxxxx@". When raw does not parse, or
// has an '@' the parser did not take for userinfo ("https://u:p/w@host"
// parses as host u, port p), where the credentials end cannot be told: only
// the scheme and what follows the last '@' are kept. Every configuration
// error that echoes a URL goes through it.
func RedactURL(raw string) string {
	at := strings.LastIndex(raw, "@")
	if at < 0 {
		return raw
	}
	if u, err := url.Parse(raw); err == nil && u.User != nil {
		u.User = url.User(urlMask)
		if s := u.String(); strings.Count(s, "@") == 1 {
			return s
		}
	}
	scheme := ""
	if i := strings.Index(raw, "://"); i >= 0 && i < at {
		scheme = raw[:i+3]
	}
	return scheme + urlMask + "@" + raw[at+1:]
}

// httpURL parses the http(s) URL of variable name; nil when it is not one.
// Its messages show the URL redacted: an operator may have written a
// password into it.
func (p *problems) httpURL(name, raw string) *url.URL {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p.add(name, "must be an http(s) URL, got %q", RedactURL(raw))
		return nil
	}
	if u.User != nil {
		p.add(name, "must not carry credentials; use the USERNAME/PASSWORD variables")
	}
	return u
}

// loopback reports whether host never leaves the machine: localhost or a
// loopback address (127.0.0.0/8, ::1). Plain HTTP or Kafka to it crosses no
// network.
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
