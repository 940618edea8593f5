package dev.wirespeed.linux.epoll;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.OpenSslSServerContract;
import dev.wirespeed.tls.TlsEngineFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** A client of the loop over {@code epoll}, with the JDK's engine, connected to {@code openssl s_server}. */
@EnabledOnOs(value = OS.LINUX, disabledReason = "epoll is Linux's")
class EpollOpenSslSServerTest extends OpenSslSServerContract {
    @BeforeEach
    void needs() {
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
