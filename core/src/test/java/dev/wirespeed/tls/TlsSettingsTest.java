package dev.wirespeed.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.wirespeed.testing.TestCertificates;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** What the settings' builder refuses, and in which words. */
class TlsSettingsTest {
    @ParameterizedTest
    @EnumSource(value = TlsSettings.ClientAuth.class, names = {"OPTIONAL", "REQUIRED"})
    void clientCertificatesAskedForWithoutTrustAreRefusedNamingBothSettings(TlsSettings.ClientAuth clientAuth) {
        TlsSettings.Builder builder = TlsSettings.builder().identity(TestCertificates.key("server"),
                TestCertificates.certificates("server")).clientAuth(clientAuth);
        IllegalStateException e = assertThrows(IllegalStateException.class, builder::build);
        assertEquals("clientAuth=" + clientAuth + " trust=default: a server asking for client certificates must name "
                + "their issuers with trust(...); the platform's default trust would take a certificate of any public "
                + "CA's", e.getMessage());
    }

    @ParameterizedTest
    @EnumSource(TlsSettings.ClientAuth.class)
    void clientCertificatesAskedForWithTrustAreTaken(TlsSettings.ClientAuth clientAuth) {
        TlsSettings settings = TlsSettings.builder().identity(TestCertificates.key("server"),
                TestCertificates.certificates("server")).clientAuth(clientAuth).trust(List.of(TestCertificates.ca()))
                .build();
        assertEquals(clientAuth, settings.clientAuth());
    }

    @Test
    void noCipherSuitesAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TlsSettings.builder().cipherSuites());
        assertEquals("cipherSuites=[]: name at least one, or leave the engine's default", e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"ECDHE-RSA-AES128-GCM-SHA256", "tls_aes_128_gcm_sha256", "TLS_", "TLS_EMPTY_RENEGOTIATION_INFO_SCSV",
        ""})
    void aCipherSuiteNotNamedAsIanaNamesThemIsRefusedNamingIt(String suite) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TlsSettings.builder().cipherSuites("TLS_AES_128_GCM_SHA256", suite));
        assertEquals("cipher suite \"" + suite + "\" in cipherSuites=[TLS_AES_128_GCM_SHA256, " + suite + "]: not an "
                + "IANA cipher suite name, such as TLS_AES_128_GCM_SHA256 or TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256",
                e.getMessage());
    }

    @Test
    void aCipherSuiteNamedTwiceIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> TlsSettings.builder().cipherSuites("TLS_AES_128_GCM_SHA256", "TLS_AES_256_GCM_SHA384",
                        "TLS_AES_128_GCM_SHA256"));
        assertEquals("cipher suite TLS_AES_128_GCM_SHA256 twice in cipherSuites=[TLS_AES_128_GCM_SHA256, "
                + "TLS_AES_256_GCM_SHA384, TLS_AES_128_GCM_SHA256]", e.getMessage());
    }

    @Test
    void cipherSuitesWithoutATls12OneAreRefusedWhereTls12IsAllowed() {
        TlsSettings.Builder builder = TlsSettings.builder().cipherSuites("TLS_AES_128_GCM_SHA256");
        IllegalStateException e = assertThrows(IllegalStateException.class, builder::build);
        assertEquals("cipherSuites=[TLS_AES_128_GCM_SHA256] protocols=[TLS_1_3, TLS_1_2]: no TLS_1_2 suite among "
                + "them; name one (TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256, say), or leave TLS_1_2 out of protocols",
                e.getMessage());
        assertEquals(List.of("TLS_AES_128_GCM_SHA256"),
                builder.protocols(TlsSettings.Protocol.TLS_1_3).build().cipherSuites());
    }

    @Test
    void cipherSuitesWithoutATls13OneAreRefusedWhereTls13IsAllowed() {
        TlsSettings.Builder builder = TlsSettings.builder().cipherSuites("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256");
        IllegalStateException e = assertThrows(IllegalStateException.class, builder::build);
        assertEquals("cipherSuites=[TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256] protocols=[TLS_1_3, TLS_1_2]: no TLS_1_3 "
                + "suite among them; name one (TLS_AES_128_GCM_SHA256, say), or leave TLS_1_3 out of protocols",
                e.getMessage());
        assertEquals(List.of("TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"),
                builder.protocols(TlsSettings.Protocol.TLS_1_2).build().cipherSuites());
    }

    @Test
    void noCipherSuitesSetMeansTheEnginesDefault() {
        assertEquals(List.of(), TlsSettings.builder().build().cipherSuites());
    }
}
