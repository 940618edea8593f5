package dev.wirespeed.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.wirespeed.testing.TestCertificates;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

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
}
