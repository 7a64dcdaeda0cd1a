package detect_test

import "golang.org/x/sys/windows"

// underWine reports whether the tests run under Wine, whose ntdll exports
// wine_get_version.
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}
