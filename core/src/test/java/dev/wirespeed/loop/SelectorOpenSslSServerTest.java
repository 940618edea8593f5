package dev.wirespeed.loop;

import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.OpenSslSServerContract;
import dev.wirespeed.tls.TlsEngineFactory;

/** A client of the loop on the JDK's {@code Selector}, with the JDK's engine, connected to {@code openssl s_server}. */
class SelectorOpenSslSServerTest extends OpenSslSServerContract {
    @Override
    protected LoopTransport transport() {
        return SelectorTransport.INSTANCE;
    }

    @Override
    protected TlsEngineFactory engine() {
        return TlsEngineFactory.jdk();
    }
}
