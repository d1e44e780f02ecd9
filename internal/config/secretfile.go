package config

import (
	"io/fs"
	"reflect"
	"strings"
)

// Secret files (private keys, passwords, tokens) must be closed to other
// users: a key another account on the host, or another container sharing
// the volume, can read is a key someone else can sign with. Public key,
// certificate and CA files are not secret and are not checked.

// secretFile checks that path names a readable regular file that other
// users cannot open.
func (p *problems) secretFile(name, path string) {
	if st := p.file(name, path); st != nil {
		p.secretMode(name, path, st)
	}
}

// secretMode refuses a secret file that others may open (any of mode 0007)
// unless PAYSESSION_ALLOW_READABLE_SECRETS is set, then it warns. A file
// only group-readable passes: Kubernetes mounts a Secret with the pod's
// fsGroup as its group and, for a non-root process, group-readable is the
// only way to read it (defaultMode 0440). It warns when the group is not
// one of this process's, whose members can then read the secret. A file
// that is not regular (a device, a pipe such as /dev/fd/N) holds nothing at
// rest and is not checked.
func (p *problems) secretMode(name, path string, st fs.FileInfo) {
	if !st.Mode().IsRegular() {
		return
	}
	mode := st.Mode().Perm()
	switch {
	case mode&0o007 != 0 && !p.allowReadableSecrets:
		p.add(name, "%s has mode %04o, open to other users; chmod o-rwx (0400, or 0440 with a group of this process: "+
			"Kubernetes defaultMode 0440 and the pod's fsGroup), or set PAYSESSION_ALLOW_READABLE_SECRETS=true to accept the risk", path, mode)
	case mode&0o007 != 0:
		p.warn(name, "%s has mode %04o, open to other users (accepted by PAYSESSION_ALLOW_READABLE_SECRETS)", path, mode)
	case mode&0o070 != 0 && !inOwnGroup(st):
		p.warn(name, "%s has mode %04o and a group this process is not in: that group's members can read it", path, mode)
	}
}

// validateSecretFiles checks the mode of every Secret read from VAR_FILE.
func (c *Config) validateSecretFiles(p *problems) {
	walk(reflect.ValueOf(c).Elem(), Prefix, func(name string, sf reflect.StructField, fv reflect.Value) {
		if sf.Type != secretType {
			return
		}
		if path := fv.Interface().(Secret).File(); path != "" {
			p.secretFile(strings.TrimPrefix(name, Prefix)+"_FILE", path)
		}
	})
}

// Warnings returns the risks Load accepted, each naming its variable: a
// secret file readable by a group this process is not in, and what
// PAYSESSION_ALLOW_READABLE_SECRETS or PAYSESSION_KAFKA_ALLOW_PLAINTEXT let
// through. The caller logs them at start.
func (c *Config) Warnings() []string { return c.warnings }
