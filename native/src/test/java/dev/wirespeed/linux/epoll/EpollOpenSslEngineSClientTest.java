package dev.wirespeed.linux.epoll;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.linux.tls.OpenSsl;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.OpenSslSClientContract;
import dev.wirespeed.tls.TlsEngineFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** {@code openssl s_client} served by the loop, with OpenSSL through FFM as the loop's engine too. */
@EnabledOnOs(value = OS.LINUX, disabledReason = "epoll is Linux's")
class EpollOpenSslEngineSClientTest extends OpenSslSClientContract {
    @BeforeEach
    void needs() {
        NativeFeatures.assumeEpoll();
        NativeFeatures.assumeOpenSsl();
    }

    @Override
    protected LoopTransport transport() {
        return EpollTransport.create();
    }

    @Override
    protected TlsEngineFactory engine() {
        return OpenSsl.engine();
    }
}
