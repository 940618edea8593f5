package dev.wirespeed.tls;

import dev.wirespeed.testing.TlsEngineContract;

/** The engine contract on the JDK's own {@code SSLEngine}. */
class JdkTlsEngineTest extends TlsEngineContract {
    @Override
    protected TlsEngineFactory engine() {
        return TlsEngineFactory.jdk();
    }
}
