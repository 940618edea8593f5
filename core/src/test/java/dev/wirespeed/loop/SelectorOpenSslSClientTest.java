package dev.wirespeed.loop;

import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.OpenSslSClientContract;
import dev.wirespeed.tls.TlsEngineFactory;

/** {@code openssl s_client} served by the loop on the JDK's {@code Selector}, with the JDK's engine. */
class SelectorOpenSslSClientTest extends OpenSslSClientContract {
    @Override
    protected LoopTransport transport() {
        return SelectorTransport.INSTANCE;
    }

    @Override
    protected TlsEngineFactory engine() {
        return TlsEngineFactory.jdk();
    }
}
