package dev.wirespeed.lab.experiments.hostile;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.net.InetSocketAddress;
import java.nio.ByteOrder;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The established connections to one address, read from tables in the shape of /proc/net/tcp and tcp6. */
class EstablishedTest {
    private static final String HEADER = "  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   "
            + "uid  timeout inode";
    private static final InetSocketAddress SERVER = new InetSocketAddress("127.0.0.1", 0x1F90);

    private static String line(int sl, String local, String remote, String state) {
        return String.format("  %2d: %s %s %s 00000000:00000000 00:00000000 00000000  1000        0 %d 1 0000000000000000 "
                + "20 4 30 10 -1", sl, local, remote, state, 10_000 + sl);
    }

    @Test
    void readsTheLocalPortsOfTheEstablishedConnectionsToTheAddressAlone() {
        assumeTrue(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN, "the table's addresses in a little-endian host");
        List<String> table = List.of(HEADER,
                line(0, "0100007F:1F90", "00000000:0000", "0A"), // the server's listening socket
                line(1, "0100007F:9FBB", "0100007F:1F90", "01"), // held
                line(2, "0100007F:9FBC", "0100007F:1F90", "08"), // CLOSE_WAIT: the server closed it
                line(3, "0100007F:9FBD", "0100007F:1F91", "01"), // another port
                line(4, "0200007F:9FBE", "0200007F:1F90", "01"), // another address
                line(5, "0100007F:A000", "0100007F:1f90", "01"), // held, in lower case
                line(6, "0100007F:1F90", "0100007F:9FBB", "01")); // the server's end of a held one
        BitSet expected = new BitSet();
        expected.set(0x9FBB);
        expected.set(0xA000);
        assertEquals(expected, Established.localPorts(table, SERVER));
    }

    @Test
    void readsTheIpv4MappedFormOfAnIpv4AddressInTheTableOfIpv6Sockets() {
        assumeTrue(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN, "the table's addresses in a little-endian host");
        String server = "0000000000000000FFFF00000100007F";
        List<String> table = List.of(HEADER,
                line(0, server + ":1F90", "00000000000000000000000000000000:0000", "0A"),
                line(1, server + ":9FBB", server + ":1F90", "01"), // held
                line(2, server + ":9FBC", server + ":1F90", "08"), // CLOSE_WAIT
                line(3, "00000000000000000000000001000000:9FBD", "00000000000000000000000001000000:1F90", "01")); // ::1
        BitSet expected = new BitSet();
        expected.set(0x9FBB);
        assertEquals(expected, Established.localPorts(table, SERVER));
        BitSet loopback6 = new BitSet();
        loopback6.set(0x9FBD);
        assertEquals(loopback6, Established.localPorts(table, new InetSocketAddress("::1", 0x1F90)));
    }

    @Test
    void theJdksOwnConnectionsAreFoundInTheKernelsTables() throws Exception {
        try (ServerSocketChannel listener = ServerSocketChannel.open().bind(new InetSocketAddress("127.0.0.1", 0));
                SocketChannel client = SocketChannel.open(listener.getLocalAddress());
                SocketChannel accepted = listener.accept()) {
            BitSet expected = new BitSet();
            expected.set(((InetSocketAddress) client.getLocalAddress()).getPort());
            assertEquals(expected, Established.localPorts((InetSocketAddress) listener.getLocalAddress()),
                    "accepted " + accepted.getRemoteAddress());
        }
    }

    @Test
    void anEmptyTableHasNone() {
        assertEquals(new BitSet(), Established.localPorts(List.of(HEADER), SERVER));
    }

    @Test
    void refusesALineThatIsNotAConnectionsNamingIt() {
        IllegalArgumentException garbage = assertThrows(IllegalArgumentException.class,
                () -> Established.localPorts(List.of(HEADER, "   0: nonsense"), SERVER));
        assertEquals("line 1 of a table of TCP connections is not a connection's: '   0: nonsense'",
                garbage.getMessage());
    }
}
