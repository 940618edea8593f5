package dev.wirespeed.linux.tls;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.OpenSslSClientContract;
import dev.wirespeed.tls.TlsEngineFactory;
import org.junit.jupiter.api.BeforeEach;

/** {@code openssl s_client} served by the loop on the JDK's {@code Selector}, with OpenSSL through FFM as its engine. */
class SelectorOpenSslEngineSClientTest extends OpenSslSClientContract {
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
