package dev.wirespeed.lab.experiments.hostile;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;

/**
 * Which of this host's TCP connections to one address are established, as the kernel's tables of them
 * say ({@code /proc/net/tcp} for IPv4 sockets, {@code /proc/net/tcp6} for IPv6 ones, where the JDK's
 * sockets are and reach an IPv4 address by its IPv4-mapped form): their local ports. A connection
 * whose peer has closed it ({@code CLOSE_WAIT}) or reset it (no longer in the table) is not.
 *
 * <p>Each line of a table reads, after a header line, {@code sl local remote st ...}; an address is its
 * bytes four at a time, each four read as an int in the host's byte order and written in hexadecimal,
 * then a colon and the port in hexadecimal; {@code st} is the state, {@code 01} for {@code ESTABLISHED}:
 *
 * <pre>
 *   sl  local_address rem_address   st tx_queue rx_queue ...
 *    1: 0100007F:9FBB 0100007F:1F90 01 00000000:00000000 ...          (tcp, a little-endian host)
 *    1: 0000000000000000FFFF00000100007F:9FBB 0000000000000000FFFF00000100007F:1F90 01 ...   (tcp6)
 * </pre>
 *
 * <p>Thread safety: stateless.
 */
final class Established {
    /** The kernel's tables of this network namespace's TCP connections, of IPv4 and of IPv6 sockets. */
    static final List<Path> TABLES = List.of(Path.of("/proc/net/tcp"), Path.of("/proc/net/tcp6"));
    /** The state {@code ESTABLISHED}, as the tables write it. */
    static final String ESTABLISHED = "01";

    private Established() {
    }

    /**
     * {@return the local ports of the established connections to {@code remote}}, read from {@link #TABLES}
     *
     * @param remote an address and port
     * @throws IOException if a table cannot be read
     */
    static BitSet localPorts(InetSocketAddress remote) throws IOException {
        BitSet ports = new BitSet(1 << 16);
        for (Path table : TABLES) {
            if (Files.exists(table)) {
                ports.or(localPorts(Files.readAllLines(table), remote));
            }
        }
        return ports;
    }

    /**
     * {@return the local ports of the established connections to {@code remote} in {@code table}}, the
     * lines of one of {@link #TABLES}, its header first
     *
     * @throws IllegalArgumentException if a line is not a connection's, naming it
     */
    static BitSet localPorts(List<String> table, InetSocketAddress remote) {
        List<String> wanted = new ArrayList<>();
        byte[] address = remote.getAddress().getAddress();
        if (remote.getAddress() instanceof Inet4Address) {
            wanted.add(hex(address) + port(remote));
            byte[] mapped = new byte[16];
            mapped[10] = (byte) 0xFF;
            mapped[11] = (byte) 0xFF;
            System.arraycopy(address, 0, mapped, 12, 4);
            wanted.add(hex(mapped) + port(remote));
        } else {
            wanted.add(hex(address) + port(remote));
        }
        BitSet ports = new BitSet(1 << 16);
        for (int i = 1; i < table.size(); i++) {
            String[] fields = table.get(i).trim().split("\\s+");
            int colon = fields.length < 4 ? -1 : fields[1].indexOf(':');
            if (colon != 8 && colon != 32 || fields[1].length() != colon + 5) {
                throw new IllegalArgumentException("line " + i + " of a table of TCP connections is not a "
                        + "connection's: '" + table.get(i) + "'");
            }
            String remoteField = fields[2].toUpperCase(Locale.ROOT);
            if (fields[3].equals(ESTABLISHED) && wanted.contains(remoteField)) {
                ports.set(Integer.parseInt(fields[1].substring(colon + 1), 16));
            }
        }
        return ports;
    }

    /** {@return an address's bytes as a table writes them: four at a time, as ints in the host's order} */
    private static String hex(byte[] address) {
        ByteBuffer words = ByteBuffer.wrap(address).order(ByteOrder.nativeOrder());
        StringBuilder hex = new StringBuilder(address.length * 2);
        while (words.hasRemaining()) {
            hex.append(String.format(Locale.ROOT, "%08X", words.getInt()));
        }
        return hex.toString();
    }

    private static String port(InetSocketAddress remote) {
        return String.format(Locale.ROOT, ":%04X", remote.getPort());
    }
}
