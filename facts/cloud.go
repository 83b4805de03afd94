package facts

import (
	"os"
	"strings"
)

// dmiDir holds the firmware's identification strings (SMBIOS/DMI).
const dmiDir = "/sys/class/dmi/id/"

// cloudSignatures map a substring of a DMI field to the cloud it marks.
// Each of these clouds serves instance metadata, the machine's
// credentials among it, at 169.254.169.254 port 80 to any local process.
var cloudSignatures = []struct{ field, substr, cloud string }{
	{"sys_vendor", "Amazon EC2", "Amazon EC2"},
	{"bios_vendor", "Amazon EC2", "Amazon EC2"},
	{"bios_version", "amazon", "Amazon EC2"},
	{"product_name", "Google Compute Engine", "Google Compute Engine"},
	{"sys_vendor", "Google", "Google Compute Engine"},
	{"chassis_asset_tag", "7783-7084-3265-9085-8269-3286-77", "Microsoft Azure"},
	{"chassis_asset_tag", "OracleCloud.com", "Oracle Cloud"},
	{"sys_vendor", "Alibaba Cloud", "Alibaba Cloud"},
	{"sys_vendor", "DigitalOcean", "DigitalOcean"},
	{"sys_vendor", "Hetzner", "Hetzner Cloud"},
	{"product_name", "OpenStack", "OpenStack"},
	{"sys_vendor", "OpenStack", "OpenStack"},
	{"sys_vendor", "Scaleway", "Scaleway"},
	{"sys_vendor", "Tencent Cloud", "Tencent Cloud"},
}

// CloudVendor names the cloud whose virtual machine this is, from the
// DMI fields read returns (name → content), or "" when none matches
// (bare metal, a laptop, a VM without DMI such as Firecracker).
func CloudVendor(read func(field string) string) string {
	for _, s := range cloudSignatures {
		if strings.Contains(read(s.field), s.substr) {
			return s.cloud
		}
	}
	return ""
}

// readDMI reads one DMI field of this machine ("" when absent).
func readDMI(field string) string {
	b, err := os.ReadFile(dmiDir + field)
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
