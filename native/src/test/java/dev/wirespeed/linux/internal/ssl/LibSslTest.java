package dev.wirespeed.linux.internal.ssl;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.linux.tls.OpenSsl;
import org.junit.jupiter.api.Test;

/** Finding OpenSSL, and saying why not where it is unusable. */
class LibSslTest {
    @Test
    void aMissingLibraryIsNamedWithWhatToInstall() {
        NativeFeatures.assumeNative();
        LibSsl.UnusableException e = assertThrows(LibSsl.UnusableException.class,
                () -> LibSsl.find("libssl.so.0-wirespeed-absent", LibSsl.CRYPTO_LIBRARY));
        assertTrue(e.getMessage().startsWith("libssl.so.0-wirespeed-absent was not found by the dynamic linker ("),
                e.getMessage());
        assertTrue(e.getMessage().endsWith("install OpenSSL 3's libraries (libssl3 on Debian and Ubuntu, openssl-libs "
                + "on Fedora), or put their directory in LD_LIBRARY_PATH"), e.getMessage());
    }

    @Test
    void aLibraryLackingFunctionsIsRefusedNamingThem() {
        NativeFeatures.assumeOpenSsl();
        LibSsl.UnusableException e = assertThrows(LibSsl.UnusableException.class,
                () -> LibSsl.find("libc.so.6", LibSsl.CRYPTO_LIBRARY));
        assertTrue(e.getMessage().startsWith("the OpenSSL libraries found lack [libc.so.6:TLS_method, "
                + "libc.so.6:SSL_CTX_new, "), e.getMessage());
        assertTrue(e.getMessage().endsWith("]: OpenSSL 3.0 or later is needed"), e.getMessage());
    }

    @Test
    void theLibrariesFoundHereAreOpenSsl3() throws Exception {
        NativeFeatures.assumeOpenSsl();
        assertTrue(OpenSsl.version().startsWith("OpenSSL 3."), OpenSsl.version());
        assertEquals(OpenSsl.version(), LibSsl.find(LibSsl.SSL_LIBRARY, LibSsl.CRYPTO_LIBRARY).version());
        assertEquals("", OpenSsl.unavailableReason());
        assertEquals("openssl", OpenSsl.engine().name());
    }
}
