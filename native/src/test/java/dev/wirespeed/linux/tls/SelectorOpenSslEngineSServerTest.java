package dev.wirespeed.linux.tls;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.OpenSslSServerContract;
import dev.wirespeed.tls.TlsEngineFactory;
import org.junit.jupiter.api.BeforeEach;

/**
 * A client of the loop on the JDK's {@code Selector}, with OpenSSL through FFM as its engine, connected to
 * {@code openssl s_server}.
 */
class SelectorOpenSslEngineSServerTest extends OpenSslSServerContract {
    @BeforeEach
    void needs() {
        NativeFeatures.assumeOpenSsl();
    }

    @Override
    protected LoopTransport transport() {
        return null; // the loops' default
    }

    @Override
    protected TlsEngineFactory engine() {
        return OpenSsl.engine();
    }
}
