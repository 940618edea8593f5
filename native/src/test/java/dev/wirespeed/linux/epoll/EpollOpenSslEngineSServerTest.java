package dev.wirespeed.linux.epoll;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.linux.tls.OpenSsl;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.OpenSslSServerContract;
import dev.wirespeed.tls.TlsEngineFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/**
 * A client of the loop over {@code epoll}, with OpenSSL through FFM as its engine, connected to {@code openssl
 * s_server}.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "epoll is Linux's")
class EpollOpenSslEngineSServerTest extends OpenSslSServerContract {
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
