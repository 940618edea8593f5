package dev.wirespeed.linux.uring;

import dev.wirespeed.linux.NativeFeatures;
import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.OpenSslSServerContract;
import dev.wirespeed.tls.TlsEngineFactory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** A client of the loop over io_uring, with the JDK's engine, connected to {@code openssl s_server}. */
@EnabledOnOs(value = OS.LINUX, disabledReason = "io_uring is Linux's")
class IoUringOpenSslSServerTest extends OpenSslSServerContract {
    @BeforeEach
    void needs() {
        NativeFeatures.assumeIoUring();
    }

    @Override
    protected LoopTransport transport() {
        return IoUringTransport.create();
    }

    @Override
    protected TlsEngineFactory engine() {
        return TlsEngineFactory.jdk();
    }
}
