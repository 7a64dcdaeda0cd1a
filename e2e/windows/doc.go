// Package windows is the end-to-end test of hub.exe as a Windows program:
// an ACP session with a fake agent started through a .cmd shim (prompt,
// permission request, cancel, session load), hub.exe run on the native
// loop against a mock LLM over loopback, and killing hub.exe leaving no
// agent process (the Job object). Its tests build only for Windows;
// `make test-windows` runs them under Wine with HUB_BIN naming hub.exe.
package windows
