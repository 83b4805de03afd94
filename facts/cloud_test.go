package facts

import "testing"

func TestCloudVendor(t *testing.T) {
	cases := []struct {
		dmi  map[string]string
		want string
	}{
		{map[string]string{"sys_vendor": "Amazon EC2", "product_name": "m5.large"}, "Amazon EC2"},
		{map[string]string{"sys_vendor": "Xen", "bios_version": "4.11.amazon"}, "Amazon EC2"},
		{map[string]string{"sys_vendor": "Google", "product_name": "Google Compute Engine"}, "Google Compute Engine"},
		{map[string]string{"sys_vendor": "Microsoft Corporation", "product_name": "Virtual Machine", "chassis_asset_tag": "7783-7084-3265-9085-8269-3286-77"}, "Microsoft Azure"},
		{map[string]string{"sys_vendor": "QEMU", "chassis_asset_tag": "OracleCloud.com"}, "Oracle Cloud"},
		{map[string]string{"sys_vendor": "DigitalOcean", "product_name": "Droplet"}, "DigitalOcean"},
		{map[string]string{"sys_vendor": "Microsoft Corporation", "product_name": "Virtual Machine"}, ""}, // Hyper-V on a desktop
		{map[string]string{"sys_vendor": "LENOVO", "product_name": "20XW"}, ""},
		{map[string]string{}, ""}, // no DMI (Firecracker)
	}
	for _, c := range cases {
		if got := CloudVendor(func(f string) string { return c.dmi[f] }); got != c.want {
			t.Errorf("%v: %q, want %q", c.dmi, got, c.want)
		}
	}
}
