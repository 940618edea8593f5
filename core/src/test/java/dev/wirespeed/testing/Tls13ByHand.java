package dev.wirespeed.testing;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.math.BigInteger;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.interfaces.XECPublicKey;
import java.security.spec.NamedParameterSpec;
import java.security.spec.XECPublicKeySpec;
import java.util.Arrays;
import javax.crypto.Cipher;
import javax.crypto.KeyAgreement;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * A TLS 1.3 client whose record layer is the test's own, for the records a hostile peer sends and no
 * engine would: application_data records of no content (RFC 8446 5.4 allows them; the JDK's {@code
 * SSLEngine} wraps nothing for an empty source, and OpenSSL's {@code SSL_write} writes nothing for
 * none). It shakes hands with x25519 and TLS_AES_128_GCM_SHA256, without a session ID (so without the
 * compatibility change_cipher_spec) and without checking the server's certificate or Finished: it is the
 * attacker here, who trusts what it likes. It is sans I/O: bytes in ({@link #fromServer}), records out;
 * {@link #connect} drives it over a blocking socket.
 *
 * <p>Thread safety: one thread at a time.
 */
public final class Tls13ByHand {
    private static final int HEADER = 5;
    private static final int TAG = 16;
    private static final byte HANDSHAKE = 22;
    private static final byte APPLICATION_DATA = 23;
    private static final byte ALERT = 21;
    private static final byte CHANGE_CIPHER_SPEC = 20;
    private static final byte[] ZEROS = new byte[32];
    /** ServerHello.random of a HelloRetryRequest (RFC 8446 4.1.3). */
    private static final byte[] RETRY = hex("cf21ad74e59a6111be1d8c021e65b891c2a211167abb8c5e079e09e2c8a8339c");

    private final KeyPair share;
    private final Mac mac;
    private final ByteArrayOutputStream transcript = new ByteArrayOutputStream();
    /** Server bytes not yet parsed into records. */
    private final ByteArrayOutputStream records = new ByteArrayOutputStream();
    /** Server handshake bytes not yet parsed into messages. */
    private final ByteArrayOutputStream messages = new ByteArrayOutputStream();
    /** Application data the server sent, not yet taken. */
    private final ByteArrayOutputStream applicationData = new ByteArrayOutputStream();
    private byte[] handshakeSecret;
    private byte[] clientHandshakeSecret;
    private byte[] clientApplicationSecret;
    private Direction in;
    private Direction out;
    private boolean serverFinished;
    private boolean finishedSent;

    /** One direction's key, IV and sequence number. */
    private final class Direction {
        final SecretKeySpec key;
        final byte[] iv;
        final Cipher cipher;
        long sequence;

        Direction(byte[] secret) throws GeneralSecurityException {
            key = new SecretKeySpec(expandLabel(secret, "key", new byte[0], 16), "AES");
            iv = expandLabel(secret, "iv", new byte[0], 12);
            cipher = Cipher.getInstance("AES/GCM/NoPadding");
        }

        /** {@return the cipher, set for the next record's nonce} */
        Cipher next(int mode) throws GeneralSecurityException {
            byte[] nonce = iv.clone();
            for (int i = 0; i < 8; i++) {
                nonce[nonce.length - 1 - i] ^= (byte) (sequence >>> (8 * i));
            }
            sequence++;
            cipher.init(mode, key, new GCMParameterSpec(128, nonce));
            return cipher;
        }
    }

    /** A client with a fresh x25519 key share. */
    public Tls13ByHand() throws GeneralSecurityException {
        share = KeyPairGenerator.getInstance("X25519").generateKeyPair();
        mac = Mac.getInstance("HmacSHA256");
    }

    /**
     * {@return a client that has shaken hands over {@code socket}}: its ClientHello sent, the server's
     * flight read to its Finished, its own Finished sent
     */
    public static Tls13ByHand connect(Socket socket) throws IOException, GeneralSecurityException {
        Tls13ByHand tls = new Tls13ByHand();
        OutputStream out = socket.getOutputStream();
        InputStream in = socket.getInputStream();
        out.write(tls.clientHello());
        out.flush();
        byte[] b = new byte[16 * 1024];
        while (!tls.serverFinished) {
            int n = in.read(b);
            if (n < 0) {
                throw new IOException("the server ended the stream in the handshake");
            }
            tls.fromServer(b, 0, n);
        }
        out.write(tls.clientFinished());
        out.flush();
        return tls;
    }

    /** {@return the first flight: one handshake record holding the ClientHello} */
    public byte[] clientHello() throws GeneralSecurityException {
        ByteArrayOutputStream extensions = new ByteArrayOutputStream();
        extension(extensions, 43, new byte[] {2, 3, 4}); // supported_versions: TLS 1.3
        extension(extensions, 10, new byte[] {0, 2, 0, 0x1d}); // supported_groups: x25519
        byte[] key = publicKey();
        ByteBuffer keyShare = ByteBuffer.allocate(2 + 4 + key.length);
        keyShare.putShort((short) (4 + key.length)).putShort((short) 0x1d).putShort((short) key.length).put(key);
        extension(extensions, 51, keyShare.array());
        int[] schemes = {0x0403, 0x0503, 0x0603, 0x0804, 0x0805, 0x0806, 0x0807, 0x0401, 0x0501, 0x0601};
        ByteBuffer algorithms = ByteBuffer.allocate(2 + 2 * schemes.length).putShort((short) (2 * schemes.length));
        for (int s : schemes) {
            algorithms.putShort((short) s);
        }
        extension(extensions, 13, algorithms.array()); // signature_algorithms
        byte[] random = new byte[32];
        new SecureRandom().nextBytes(random);
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        body.write(3);
        body.write(3); // legacy_version
        body.writeBytes(random);
        body.write(0); // legacy_session_id: none
        body.writeBytes(new byte[] {0, 2, 0x13, 0x01}); // cipher_suites: TLS_AES_128_GCM_SHA256
        body.writeBytes(new byte[] {1, 0}); // legacy_compression_methods: null
        body.write(extensions.size() >>> 8);
        body.write(extensions.size());
        body.writeBytes(extensions.toByteArray());
        byte[] hello = message(1, body.toByteArray());
        transcript.writeBytes(hello);
        return plaintextRecord(HANDSHAKE, 0x0301, hello);
    }

    /**
     * Takes {@code n} bytes the server sent: the handshake's messages until its Finished, then
     * application data (kept for {@link #takeApplicationData()}) and post-handshake messages (tickets,
     * dropped).
     *
     * @return true once the server's Finished has been read
     * @throws IOException an alert, or what this client does not do (a HelloRetryRequest, a certificate request)
     */
    public boolean fromServer(byte[] bytes, int offset, int n) throws IOException, GeneralSecurityException {
        records.write(bytes, offset, n);
        byte[] all = records.toByteArray();
        int at = 0;
        while (all.length - at >= HEADER) {
            int length = (all[at + 3] & 0xFF) << 8 | (all[at + 4] & 0xFF);
            if (all.length - at < HEADER + length) {
                break;
            }
            record(all[at], Arrays.copyOfRange(all, at, at + HEADER), Arrays.copyOfRange(all, at + HEADER,
                    at + HEADER + length));
            at += HEADER + length;
        }
        records.reset();
        records.write(all, at, all.length - at);
        return serverFinished;
    }

    private void record(byte type, byte[] header, byte[] body) throws IOException, GeneralSecurityException {
        if (type == CHANGE_CIPHER_SPEC) {
            return; // a compatibility change_cipher_spec: dropped
        }
        if (type == ALERT && in == null) {
            throw new IOException("the server's alert: level=" + body[0] + " description=" + (body[1] & 0xFF));
        }
        if (type == HANDSHAKE && in == null) {
            handshakeBytes(body);
            return;
        }
        if (type != APPLICATION_DATA || in == null) {
            throw new IOException("an unexpected record of type " + type);
        }
        Cipher cipher = in.next(Cipher.DECRYPT_MODE);
        cipher.updateAAD(header);
        byte[] inner = cipher.doFinal(body);
        int end = inner.length;
        while (end > 0 && inner[end - 1] == 0) {
            end--; // padding
        }
        if (end == 0) {
            throw new IOException("a record of padding alone");
        }
        byte innerType = inner[end - 1];
        byte[] content = Arrays.copyOf(inner, end - 1);
        switch (innerType) {
            case HANDSHAKE -> {
                if (!serverFinished) {
                    handshakeBytes(content);
                } // else a NewSessionTicket: dropped
            }
            case APPLICATION_DATA -> applicationData.writeBytes(content);
            case ALERT -> throw new IOException("the server's alert: level=" + content[0] + " description="
                    + (content[1] & 0xFF));
            default -> throw new IOException("an unexpected inner content type " + innerType);
        }
    }

    /** Parses the server's handshake messages, each into the transcript; keys change after its ServerHello. */
    private void handshakeBytes(byte[] bytes) throws IOException, GeneralSecurityException {
        messages.writeBytes(bytes);
        byte[] all = messages.toByteArray();
        int at = 0;
        while (all.length - at >= 4) {
            int length = (all[at + 1] & 0xFF) << 16 | (all[at + 2] & 0xFF) << 8 | (all[at + 3] & 0xFF);
            if (all.length - at < 4 + length) {
                break;
            }
            byte[] message = Arrays.copyOfRange(all, at, at + 4 + length);
            at += 4 + length;
            int type = message[0];
            switch (type) {
                case 2 -> serverHello(message);
                case 8, 11, 15 -> transcript.writeBytes(message); // EncryptedExtensions, Certificate, CertificateVerify
                case 20 -> { // Finished: not checked
                    transcript.writeBytes(message);
                    serverFinished();
                }
                case 13 -> throw new IOException("the server asks for a certificate, which this client has none of");
                default -> throw new IOException("an unexpected handshake message of type " + type);
            }
        }
        messages.reset();
        messages.write(all, at, all.length - at);
    }

    private void serverHello(byte[] message) throws IOException, GeneralSecurityException {
        ByteBuffer b = ByteBuffer.wrap(message, 4, message.length - 4);
        b.getShort(); // legacy_version
        byte[] random = new byte[32];
        b.get(random);
        if (Arrays.equals(random, RETRY)) {
            throw new IOException("a HelloRetryRequest: the server wants another key share than x25519");
        }
        int echoed = b.get() & 0xFF;
        b.position(b.position() + echoed); // legacy_session_id_echo
        int suite = b.getShort() & 0xFFFF;
        if (suite != 0x1301) {
            throw new IOException("cipher suite 0x" + Integer.toHexString(suite) + ", not TLS_AES_128_GCM_SHA256");
        }
        b.get(); // legacy_compression_method
        int end = b.position() + 2 + (b.getShort() & 0xFFFF);
        byte[] serverKey = null;
        while (b.position() < end) {
            int type = b.getShort() & 0xFFFF;
            int length = b.getShort() & 0xFFFF;
            if (type == 51) { // key_share
                b.getShort(); // group: x25519, the only one offered
                serverKey = new byte[b.getShort() & 0xFFFF];
                b.get(serverKey);
            } else {
                b.position(b.position() + length);
            }
        }
        if (serverKey == null) {
            throw new IOException("a ServerHello without a key share");
        }
        transcript.writeBytes(message);
        byte[] shared = agree(serverKey);
        byte[] early = hmac(ZEROS, ZEROS);
        handshakeSecret = hmac(deriveSecret(early, "derived", sha256(new byte[0])), shared);
        byte[] hash = sha256(transcript.toByteArray());
        clientHandshakeSecret = deriveSecret(handshakeSecret, "c hs traffic", hash);
        in = new Direction(deriveSecret(handshakeSecret, "s hs traffic", hash));
        out = new Direction(clientHandshakeSecret);
    }

    /** The server's Finished is read: reading goes on with its application traffic keys. */
    private void serverFinished() throws GeneralSecurityException {
        serverFinished = true;
        byte[] master = hmac(deriveSecret(handshakeSecret, "derived", sha256(new byte[0])), ZEROS);
        byte[] hash = sha256(transcript.toByteArray());
        in = new Direction(deriveSecret(master, "s ap traffic", hash));
        clientApplicationSecret = deriveSecret(master, "c ap traffic", hash);
    }

    /**
     * {@return the client's Finished, sealed with its handshake key}: the records after it are sealed
     * with its application traffic key
     */
    public byte[] clientFinished() throws GeneralSecurityException {
        if (!serverFinished || finishedSent) {
            throw new IllegalStateException("serverFinished=" + serverFinished + " finishedSent=" + finishedSent);
        }
        byte[] key = expandLabel(clientHandshakeSecret, "finished", new byte[0], 32);
        byte[] finished = message(20, hmac(key, sha256(transcript.toByteArray())));
        byte[] record = seal(HANDSHAKE, finished);
        out = new Direction(clientApplicationSecret);
        finishedSent = true;
        return record;
    }

    /** {@return one application_data record holding {@code content}} */
    public byte[] applicationData(byte[] content) throws GeneralSecurityException {
        return seal(APPLICATION_DATA, content);
    }

    /** {@return {@code n} application_data records of no content and no padding: 22 bytes each} */
    public byte[] emptyRecords(int n) throws GeneralSecurityException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(n * (HEADER + 1 + TAG));
        for (int i = 0; i < n; i++) {
            b.writeBytes(seal(APPLICATION_DATA, new byte[0]));
        }
        return b.toByteArray();
    }

    /**
     * {@return {@code n} alerts of level warning and {@code description}, each in a record of its own}:
     * after the handshake, sealed as application_data records, as TLS 1.3 seals alerts
     */
    public byte[] warningAlerts(int n, int description) throws GeneralSecurityException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int i = 0; i < n; i++) {
            b.writeBytes(seal(ALERT, new byte[] {1, (byte) description}));
        }
        return b.toByteArray();
    }

    /**
     * {@return {@code n} KeyUpdate messages that request no update of the server, each in a record of its
     * own, the client's key updated after each}
     */
    public byte[] keyUpdates(int n) throws GeneralSecurityException {
        return keyUpdates(n, false);
    }

    /**
     * {@return {@code n} KeyUpdate messages, each in a record of its own, the client's key updated after
     * each: each asks the server to update its own key too (and to say so) where {@code requested}}
     */
    public byte[] keyUpdates(int n, boolean requested) throws GeneralSecurityException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        for (int i = 0; i < n; i++) {
            b.writeBytes(seal(HANDSHAKE, message(24, new byte[] {(byte) (requested ? 1 : 0)})));
            clientApplicationSecret = expandLabel(clientApplicationSecret, "traffic upd", new byte[0], 32);
            out = new Direction(clientApplicationSecret);
        }
        return b.toByteArray();
    }

    /** {@return the application data the server sent, taken} */
    public byte[] takeApplicationData() {
        byte[] b = applicationData.toByteArray();
        applicationData.reset();
        return b;
    }

    /** {@return a record of {@code type} holding {@code content}, unpadded, sealed} */
    private byte[] seal(byte type, byte[] content) throws GeneralSecurityException {
        if (!finishedSent && type != HANDSHAKE) {
            throw new IllegalStateException("application data before the client's Finished");
        }
        byte[] inner = Arrays.copyOf(content, content.length + 1);
        inner[content.length] = type;
        int length = inner.length + TAG;
        byte[] record = new byte[HEADER + length];
        record[0] = APPLICATION_DATA;
        record[1] = 3;
        record[2] = 3;
        record[3] = (byte) (length >>> 8);
        record[4] = (byte) length;
        Cipher cipher = out.next(Cipher.ENCRYPT_MODE);
        cipher.updateAAD(record, 0, HEADER);
        cipher.doFinal(inner, 0, inner.length, record, HEADER);
        return record;
    }

    private byte[] publicKey() {
        BigInteger u = ((XECPublicKey) share.getPublic()).getU();
        byte[] bigEndian = u.toByteArray();
        byte[] little = new byte[32];
        for (int i = 0; i < 32 && i < bigEndian.length; i++) {
            little[i] = bigEndian[bigEndian.length - 1 - i];
        }
        return little;
    }

    private byte[] agree(byte[] serverKey) throws GeneralSecurityException {
        byte[] bigEndian = new byte[32];
        for (int i = 0; i < 32; i++) {
            bigEndian[i] = serverKey[31 - i];
        }
        bigEndian[0] &= 0x7F; // RFC 7748 5: the top bit of the last byte is masked
        PublicKey server = KeyFactory.getInstance("XDH").generatePublic(
                new XECPublicKeySpec(NamedParameterSpec.X25519, new BigInteger(1, bigEndian)));
        KeyAgreement agreement = KeyAgreement.getInstance("XDH");
        agreement.init(share.getPrivate());
        agreement.doPhase(server, true);
        return agreement.generateSecret();
    }

    private static void extension(ByteArrayOutputStream out, int type, byte[] data) {
        out.write(type >>> 8);
        out.write(type);
        out.write(data.length >>> 8);
        out.write(data.length);
        out.writeBytes(data);
    }

    private static byte[] message(int type, byte[] body) {
        byte[] m = new byte[4 + body.length];
        m[0] = (byte) type;
        m[1] = (byte) (body.length >>> 16);
        m[2] = (byte) (body.length >>> 8);
        m[3] = (byte) body.length;
        System.arraycopy(body, 0, m, 4, body.length);
        return m;
    }

    private static byte[] plaintextRecord(byte type, int version, byte[] body) {
        byte[] r = new byte[HEADER + body.length];
        r[0] = type;
        r[1] = (byte) (version >>> 8);
        r[2] = (byte) version;
        r[3] = (byte) (body.length >>> 8);
        r[4] = (byte) body.length;
        System.arraycopy(body, 0, r, HEADER, body.length);
        return r;
    }

    // ---- the key schedule (RFC 8446 7.1), with SHA-256

    private static byte[] sha256(byte[] b) throws GeneralSecurityException {
        return MessageDigest.getInstance("SHA-256").digest(b);
    }

    /** HMAC-SHA256: HKDF-Extract with {@code key} as the salt, a zero salt as 32 zeros (the same key to HMAC). */
    private byte[] hmac(byte[] key, byte[] data) throws GeneralSecurityException {
        mac.init(new SecretKeySpec(key, "HmacSHA256"));
        return mac.doFinal(data);
    }

    private byte[] expandLabel(byte[] secret, String label, byte[] context, int length)
            throws GeneralSecurityException {
        byte[] full = ("tls13 " + label).getBytes(StandardCharsets.US_ASCII);
        ByteBuffer info = ByteBuffer.allocate(2 + 1 + full.length + 1 + context.length);
        info.putShort((short) length).put((byte) full.length).put(full).put((byte) context.length).put(context);
        mac.init(new SecretKeySpec(secret, "HmacSHA256"));
        byte[] okm = new byte[length];
        byte[] t = new byte[0];
        for (int i = 1, at = 0; at < length; i++) {
            mac.update(t);
            mac.update(info.array());
            mac.update((byte) i);
            t = mac.doFinal();
            int n = Math.min(t.length, length - at);
            System.arraycopy(t, 0, okm, at, n);
            at += n;
        }
        return okm;
    }

    private byte[] deriveSecret(byte[] secret, String label, byte[] transcriptHash)
            throws GeneralSecurityException {
        return expandLabel(secret, label, transcriptHash, 32);
    }

    private static byte[] hex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return b;
    }
}
