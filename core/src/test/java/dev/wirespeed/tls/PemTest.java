package dev.wirespeed.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.wirespeed.testing.TestCertificates;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.security.GeneralSecurityException;
import java.security.PrivateKey;
import org.junit.jupiter.api.Test;

/** Reading a private key, and what is left of its bytes after. */
class PemTest {
    @Test
    void theBytesOfAKeyReadAreZeroedOnceItIsMade() throws Exception {
        byte[] pem = Files.readAllBytes(TestCertificates.file("server.key"));
        PrivateKey key = Pem.privateKey(pem, "server.key");
        assertArrayEquals(TestCertificates.key("server").getEncoded(), key.getEncoded(), "the same key as from the file");
        assertArrayEquals(new byte[pem.length], pem, "the PEM bytes zeroed");
    }

    @Test
    void theBytesOfAKeyRefusedAreZeroedToo() {
        byte[] pem = ("-----BEGIN PRIVATE KEY-----\nMIIB\n-----END PRIVATE KEY-----\n").getBytes(StandardCharsets.US_ASCII);
        GeneralSecurityException e = assertThrows(GeneralSecurityException.class, () -> Pem.privateKey(pem, "bad.key"));
        assertEquals("bad.key: a PKCS#8 key of none of RSA, EC, Ed25519, Ed448, RSASSA-PSS", e.getMessage());
        assertArrayEquals(new byte[pem.length], pem, "the PEM bytes zeroed");
    }

    @Test
    void aLegacyKeyIsRefusedNamingHowToConvertIt() {
        byte[] pem = ("-----BEGIN EC PRIVATE KEY-----\nMHcC\n-----END EC PRIVATE KEY-----\n")
                .getBytes(StandardCharsets.US_ASCII);
        GeneralSecurityException e = assertThrows(GeneralSecurityException.class, () -> Pem.privateKey(pem, "ec.key"));
        assertEquals("ec.key: a EC PRIVATE KEY block; wanted an unencrypted PKCS#8 PRIVATE KEY: convert it with "
                + "'openssl pkcs8 -topk8 -nocrypt -in ec.key'", e.getMessage());
        assertArrayEquals(new byte[pem.length], pem, "the PEM bytes zeroed");
    }
}
