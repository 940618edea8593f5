package dev.wirespeed.linux.uring;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.linux.tls.OpenSsl;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.OpenSslSClientContract;
import dev.wirespeed.tls.TlsEngineFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** {@code openssl s_client} served by the loop, with OpenSSL through FFM as the loop's engine too. */
@EnabledOnOs(value = OS.LINUX, disabledReason = "io_uring is Linux's")
class IoUringOpenSslEngineSClientTest extends OpenSslSClientContract {
    @BeforeEach
    void needs() {
        NativeFeatures.assumeIoUring();
        NativeFeatures.assumeOpenSsl();
    }

    @Override
    protected LoopTransport transport() {
        return IoUringTransport.create();
    }

    @Override
    protected TlsEngineFactory engine() {
        return OpenSsl.engine();
    }
}
