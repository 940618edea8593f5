package dev.wirespeed.lab.tls;

import dev.wirespeed.tls.TlsSettings;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.channels.ByteChannel;
import java.nio.channels.Channels;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.List;
import javax.net.ssl.SNIHostName;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManagerFactory;

/**
 * A blocking TLS client for {@code ping --tls}: the JDK's {@link SSLSocket}, set up as a client's
 * {@link TlsSettings} say (trust, protocols, server name and its check), seen as a {@link ByteChannel}.
 */
public final class TlsSockets {
    private TlsSockets() {
    }

    /**
     * Connects and handshakes.
     *
     * @param address the server
     * @param tls a client's settings with explicit trust
     * @return the channel: reads and writes plaintext; closing it sends a close_notify
     * @throws IOException if the connect or the handshake fails
     */
    public static ByteChannel connect(InetSocketAddress address, TlsSettings tls) throws IOException {
        SSLContext context;
        try {
            KeyStore trust = KeyStore.getInstance("PKCS12");
            trust.load(null, null);
            for (int i = 0; i < tls.trusted().size(); i++) {
                trust.setCertificateEntry("trusted-" + i, tls.trusted().get(i));
            }
            TrustManagerFactory tm = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tm.init(trust);
            context = SSLContext.getInstance("TLS");
            context.init(null, tm.getTrustManagers(), null);
        } catch (GeneralSecurityException e) {
            throw new IOException("the trust of --trust is unusable: " + e.getMessage(), e);
        }
        String host = tls.serverName() != null ? tls.serverName() : address.getHostString();
        Socket tcp = new Socket(address.getAddress(), address.getPort());
        tcp.setTcpNoDelay(true);
        SSLSocket socket = (SSLSocket) context.getSocketFactory().createSocket(tcp, host, address.getPort(), true);
        SSLParameters p = socket.getSSLParameters();
        p.setProtocols(tls.protocols().stream().map(TlsSettings.Protocol::jdkName).toArray(String[]::new));
        p.setServerNames(List.of(new SNIHostName(host)));
        if (tls.hostnameVerification()) {
            p.setEndpointIdentificationAlgorithm("HTTPS");
        }
        socket.setSSLParameters(p);
        socket.startHandshake();
        InputStream in = socket.getInputStream();
        OutputStream out = socket.getOutputStream();
        ReadableByteChannel reads = Channels.newChannel(in);
        WritableByteChannel writes = Channels.newChannel(out);
        return new ByteChannel() {
            @Override
            public int read(ByteBuffer dst) throws IOException {
                return reads.read(dst);
            }

            @Override
            public int write(ByteBuffer src) throws IOException {
                return writes.write(src);
            }

            @Override
            public boolean isOpen() {
                return !socket.isClosed();
            }

            @Override
            public void close() throws IOException {
                socket.close();
            }
        };
    }
}
