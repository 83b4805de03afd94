package secrets

import (
	"reflect"
	"testing"
)

func TestCredentialVarPaths(t *testing.T) {
	cases := []struct {
		parse func(string) []string
		in    string
		want  []string
	}{
		{gpgAgentInfoPath, "/run/user/1/gnupg/S.gpg-agent:0:1", []string{"/run/user/1/gnupg/S.gpg-agent"}},
		{gpgAgentInfoPath, "/x", []string{"/x"}},
		{dbusPaths, "unix:path=/run/user/1/bus", []string{"/run/user/1/bus"}},
		{dbusPaths, "unix:abstract=/tmp/dbus-x,guid=1;unix:path=/var/b%20us,guid=2;tcp:host=x", []string{"/var/b us"}},
		{dbusPaths, "unix:path=/a%2", []string{"/a%2"}},
		{dbusPaths, "garbage", nil},
		{pathList, "/a:/b::/c", []string{"/a", "/b", "", "/c"}},
		{krb5Path, "FILE:/tmp/krb5cc_1", []string{"/tmp/krb5cc_1"}},
		{krb5Path, "DIR:/home/u/krb", []string{"/home/u/krb"}},
		{krb5Path, "KEYRING:persistent:1000", nil},
		{krb5Path, "/home/u/cc", []string{"/home/u/cc"}},
	}
	for _, c := range cases {
		if got := c.parse(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("parse(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
