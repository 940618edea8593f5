package dev.wirespeed.linux.tls;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.testing.TlsEngineContract;
import dev.wirespeed.tls.TlsEngineFactory;
import org.junit.jupiter.api.BeforeEach;

/** The engine contract on OpenSSL through FFM, with itself and with the JDK's engine at the other end. */
class OpenSslTlsEngineTest extends TlsEngineContract {
    @BeforeEach
    void needsOpenSsl() {
        NativeFeatures.assumeOpenSsl();
    }

    @Override
    protected TlsEngineFactory engine() {
        return OpenSsl.engine();
    }
}
