package dev.wirespeed.linux.internal.ssl;

import java.io.ByteArrayInputStream;
import java.security.Principal;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.HashMap;
import java.util.Map;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.net.ssl.SSLSessionBindingEvent;
import javax.net.ssl.SSLSessionBindingListener;
import javax.net.ssl.SSLSessionContext;

/**
 * What an {@link OpenSslEngine}'s handshake agreed, copied out of OpenSSL when it finished, so that it
 * outlives the engine's native memory: the protocol, the cipher suite, the peer's certificates (kept as
 * DER, decoded on first request). Before the handshake finishes it says {@code NONE} and
 * {@code SSL_NULL_WITH_NULL_NULL}, as the JDK's sessions do. Sessions are never resumed.
 *
 * <p>Thread safety: as its engine; the peer's certificates are decoded under a lock.
 */
final class OpenSslSession implements SSLSession {
    /** A record's largest size on the wire: header, 2^14 bytes, OpenSSL's largest overhead (as the JDK's). */
    static final int PACKET_BUFFER_SIZE = 5 + 16384 + 256 + 64;
    /** The largest plaintext a record of {@link #PACKET_BUFFER_SIZE} may carry, and more (as the JDK's). */
    static final int APPLICATION_BUFFER_SIZE = PACKET_BUFFER_SIZE - 5;

    private final OpenSslEngine engine;
    private final X509Certificate[] local;
    private final long created = System.currentTimeMillis();
    private volatile String protocol = "NONE";
    private volatile String cipherSuite = "SSL_NULL_WITH_NULL_NULL";
    private volatile byte[][] peerDer;
    private X509Certificate[] peer;
    private Map<String, Object> values;
    private volatile boolean valid = true;

    OpenSslSession(OpenSslEngine engine, X509Certificate[] local) {
        this.engine = engine;
        this.local = local;
    }

    /** Takes what the finished handshake agreed. */
    void agreed(String protocol, String cipherSuite, byte[][] peerDer) {
        this.protocol = protocol;
        this.cipherSuite = cipherSuite;
        this.peerDer = peerDer;
    }

    @Override
    public byte[] getId() {
        return new byte[0];
    }

    @Override
    public SSLSessionContext getSessionContext() {
        return null;
    }

    @Override
    public long getCreationTime() {
        return created;
    }

    @Override
    public long getLastAccessedTime() {
        return created;
    }

    @Override
    public void invalidate() {
        valid = false;
    }

    @Override
    public boolean isValid() {
        return valid && !"NONE".equals(protocol);
    }

    @Override
    public synchronized void putValue(String name, Object value) {
        if (name == null || value == null) {
            throw new IllegalArgumentException("name=" + name + " value=" + value + ": neither may be null");
        }
        if (values == null) {
            values = new HashMap<>();
        }
        Object old = values.put(name, value);
        if (old instanceof SSLSessionBindingListener l) {
            l.valueUnbound(new SSLSessionBindingEvent(this, name));
        }
        if (value instanceof SSLSessionBindingListener l) {
            l.valueBound(new SSLSessionBindingEvent(this, name));
        }
    }

    @Override
    public synchronized Object getValue(String name) {
        return values == null ? null : values.get(name);
    }

    @Override
    public synchronized void removeValue(String name) {
        Object old = values == null ? null : values.remove(name);
        if (old instanceof SSLSessionBindingListener l) {
            l.valueUnbound(new SSLSessionBindingEvent(this, name));
        }
    }

    @Override
    public synchronized String[] getValueNames() {
        return values == null ? new String[0] : values.keySet().toArray(new String[0]);
    }

    @Override
    public Certificate[] getPeerCertificates() throws SSLPeerUnverifiedException {
        return peer().clone();
    }

    private synchronized X509Certificate[] peer() throws SSLPeerUnverifiedException {
        if (peer == null) {
            byte[][] der = peerDer;
            if (der == null || der.length == 0) {
                throw new SSLPeerUnverifiedException("peer not authenticated: protocol=" + protocol
                        + " (no certificate came, or the handshake has not finished)");
            }
            X509Certificate[] decoded = new X509Certificate[der.length];
            for (int i = 0; i < der.length; i++) {
                decoded[i] = decode(der[i]);
                if (decoded[i] == null) {
                    throw new SSLPeerUnverifiedException("the peer's certificate " + i + " of " + der.length
                            + " (" + der[i].length + " bytes of DER) will not decode");
                }
            }
            peer = decoded;
        }
        return peer;
    }

    /** {@return the certificate of {@code der}, or null if it is not one} */
    static X509Certificate decode(byte[] der) {
        if (der == null) {
            return null;
        }
        try {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(new ByteArrayInputStream(der));
        } catch (CertificateException e) {
            return null;
        }
    }

    @Override
    public Certificate[] getLocalCertificates() {
        return local == null ? null : local.clone();
    }

    @Override
    public Principal getPeerPrincipal() throws SSLPeerUnverifiedException {
        return peer()[0].getSubjectX500Principal();
    }

    @Override
    public Principal getLocalPrincipal() {
        return local == null ? null : local[0].getSubjectX500Principal();
    }

    @Override
    public String getCipherSuite() {
        return cipherSuite;
    }

    @Override
    public String getProtocol() {
        return protocol;
    }

    @Override
    public String getPeerHost() {
        return engine.getPeerHost();
    }

    @Override
    public int getPeerPort() {
        return engine.getPeerPort();
    }

    @Override
    public int getPacketBufferSize() {
        return PACKET_BUFFER_SIZE;
    }

    @Override
    public int getApplicationBufferSize() {
        return APPLICATION_BUFFER_SIZE;
    }

    @Override
    public String toString() {
        return "OpenSslSession[" + protocol + " " + cipherSuite + " peer=" + engine.getPeerHost() + ":"
                + engine.getPeerPort() + "]";
    }
}
