package dev.wirespeed.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.wirespeed.testing.TestCertificates;
import dev.wirespeed.testing.TlsEngineContract;
import java.security.GeneralSecurityException;
import org.junit.jupiter.api.Test;

/** The engine contract on the JDK's own {@code SSLEngine}. */
class JdkTlsEngineTest extends TlsEngineContract {
    @Override
    protected TlsEngineFactory engine() {
        return TlsEngineFactory.jdk();
    }

    @Test
    void aCipherSuiteTheJdkDoesNotKnowIsRefusedNamingIt() {
        TlsSettings settings = TestCertificates.identity("server").cipherSuites("TLS_AES_128_GCM_SHA256",
                "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", "TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8").build();
        GeneralSecurityException e = assertThrows(GeneralSecurityException.class,
                () -> TlsEngineFactory.jdk().context(settings, false));
        assertEquals("cipherSuites=[TLS_AES_128_GCM_SHA256, TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, "
                + "TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8]: [TLS_ECDHE_ECDSA_WITH_AES_128_CCM_8] unknown to the JDK's engine "
                + "(SunJSSE, Java " + Runtime.version().feature() + ")", e.getMessage());
    }
}
