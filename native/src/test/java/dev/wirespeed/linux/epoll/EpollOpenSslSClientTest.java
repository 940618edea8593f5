package dev.wirespeed.linux.epoll;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.OpenSslSClientContract;
import dev.wirespeed.tls.TlsEngineFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** {@code openssl s_client} served by the loop over {@code epoll}, with the JDK's engine. */
@EnabledOnOs(value = OS.LINUX, disabledReason = "epoll is Linux's")
class EpollOpenSslSClientTest extends OpenSslSClientContract {
    @BeforeEach
    void needsEpoll() {
        NativeFeatures.assumeEpoll();
    }

    @Override
    protected LoopTransport transport() {
        return EpollTransport.create();
    }

    @Override
    protected TlsEngineFactory engine() {
        return TlsEngineFactory.jdk();
    }
}
