package dev.wirespeed.lab.experiments.hostile;

/** Whether a server of the hostile experiment speaks TLS, and on which engine. */
public enum Tls {
    /** Plaintext frames. */
    NONE(null, null),
    /** The JDK's {@code SSLEngine}: the library's loop and Netty's JDK provider. */
    JDK("jdk", "JDK"),
    /** OpenSSL: the library's OpenSSL 3 through FFM, Netty's OpenSSL provider (BoringSSL). */
    OPENSSL("openssl", "OpenSSL");

    private final String cliName;
    private final String label;

    Tls(String cliName, String label) {
        this.cliName = cliName;
        this.label = label;
    }

    /** {@return the {@code --tls-engine} name, or null for {@link #NONE}} */
    public String cliName() {
        return cliName;
    }

    /** {@return the engine's name in tables, or null for {@link #NONE}} */
    public String label() {
        return label;
    }
}
