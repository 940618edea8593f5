package dev.wirespeed.loop;

import dev.wirespeed.loop.spi.LoopTransport;
import dev.wirespeed.testing.TlsLoopContract;
import dev.wirespeed.tls.TlsEngineFactory;

/** The loop's TLS on the JDK's {@code Selector} with the JDK's engine. */
class SelectorTlsTest extends TlsLoopContract {
    @Override
    protected LoopTransport transport() {
        return SelectorTransport.INSTANCE;
    }

    @Override
    protected TlsEngineFactory engine() {
        return TlsEngineFactory.jdk();
    }
}
