package dev.wirespeed.tls;

import java.io.Serial;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import javax.net.ssl.SSLHandshakeException;

/**
 * A handshake refused over the peer's certificate, whatever the engine: the message names what was
 * expected and what came, in one format for every {@link TlsEngineFactory}:
 *
 * <pre>
 * server certificate for another host: expected HOST; came SUBJECT, names [DNS:NAME, IP:ADDRESS], issued by ISSUER, valid NOT_BEFORE to NOT_AFTER
 * </pre>
 *
 * <p>Engines make it with {@link #of}; the cause, where there is one, is the engine's own failure.
 */
public final class PeerCertificateException extends SSLHandshakeException {
    @Serial
    private static final long serialVersionUID = 1L;

    /** What is wrong with the certificate. */
    public enum Problem {
        /** Its chain leads to no trusted issuer. */
        UNTRUSTED("not issued by a trusted certificate"),
        /** Past its validity. */
        EXPIRED("expired"),
        /** Before its validity. */
        NOT_YET_VALID("not yet valid"),
        /** It names another host than the one connected to. */
        WRONG_HOST("for another host"),
        /** None came where one was required. */
        MISSING("missing");

        private final String words;

        Problem(String words) {
            this.words = words;
        }
    }

    private final transient Problem problem;

    private PeerCertificateException(String message, Problem problem) {
        super(message);
        this.problem = problem;
    }

    /** {@return what is wrong with the certificate} */
    public Problem problem() {
        return problem;
    }

    /**
     * Describes a refused certificate.
     *
     * @param peer {@code "server"} or {@code "client"}: whose certificate it is
     * @param problem what is wrong
     * @param expected what this end expected: the host name for {@link Problem#WRONG_HOST}, the trusted
     *     issuers or the time for the others; may be null
     * @param presented the peer's own certificate, or null for {@link Problem#MISSING}
     * @param cause the engine's failure, or null
     * @return the exception
     */
    public static PeerCertificateException of(String peer, Problem problem, String expected, X509Certificate presented,
            Throwable cause) {
        Objects.requireNonNull(problem, "problem");
        StringBuilder m = new StringBuilder(peer).append(" certificate ").append(problem.words);
        if (expected != null) {
            m.append(": expected ").append(expected);
        }
        m.append(expected == null ? ": " : "; ").append("came ");
        if (presented == null) {
            m.append("none");
        } else {
            m.append(presented.getSubjectX500Principal().getName()).append(", names ").append(names(presented))
                    .append(", issued by ").append(presented.getIssuerX500Principal().getName())
                    .append(", valid ").append(presented.getNotBefore().toInstant()).append(" to ")
                    .append(presented.getNotAfter().toInstant());
        }
        PeerCertificateException e = new PeerCertificateException(m.toString(), problem);
        if (cause != null) {
            e.initCause(cause);
        }
        return e;
    }

    /** {@return the certificate's subject alternative names, as {@code DNS:name} and {@code IP:address}} */
    static List<String> names(X509Certificate c) {
        List<String> names = new ArrayList<>();
        try {
            Collection<List<?>> alternatives = c.getSubjectAlternativeNames();
            if (alternatives != null) {
                for (List<?> name : alternatives) {
                    int type = (Integer) name.get(0);
                    names.add((type == 2 ? "DNS:" : type == 7 ? "IP:" : "type" + type + ":") + name.get(1));
                }
            }
        } catch (CertificateParsingException e) {
            names.add("(unreadable: " + e.getMessage() + ")");
        }
        return names;
    }
}
