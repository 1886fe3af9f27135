/*
 * bcryptprimitives.dll for Wine: only ProcessPrng.
 *
 * Why it exists: since Go 1.22 the Windows runtime takes its random bytes
 * from ProcessPrng in bcryptprimitives.dll (runtime/os_windows.go) and
 * aborts at start ("fatal error: bcryptprimitives.dll not found") when the
 * DLL is missing. Wine 8.0, Debian 12's Wine, has no such DLL, so no Go
 * 1.26 windows/amd64 program starts under it. `make test-windows` builds
 * this file with x86_64-w64-mingw32-gcc into the test Wine prefix's
 * system32 (never into a real Windows, which has the real DLL).
 *
 * When it can go: when the Wine that CI installs ships its own
 * bcryptprimitives.dll with ProcessPrng (newer Wine releases do). The test
 * script installs the shim only into a prefix that lacks the DLL, and says
 * so; once it stops saying so on CI, delete this file and those lines.
 *
 * ProcessPrng fills the buffer and always returns TRUE (its documented
 * contract); RtlGenRandom (advapi32's SystemFunction036) does the work.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T len)
{
	while (len > 0) {
		ULONG n = len > 0x40000000 ? 0x40000000 : (ULONG)len;
		if (!SystemFunction036(data, n))
			return FALSE;
		data += n;
		len -= n;
	}
	return TRUE;
}
