/**
 * wirespeed core: buffered channel reading and writing, whole streams and files, newline counts and
 * idle strategies ({@link dev.wirespeed.io}); the wire protocol's frames ({@link dev.wirespeed.frame});
 * event loops that serve and open framed connections ({@link dev.wirespeed.loop}); TLS settings and
 * engines for the loops' connections, the JDK's engine among them ({@link dev.wirespeed.tls}); and
 * frames between processes through a ring in shared memory ({@link dev.wirespeed.shm}). A platform
 * module plugs in through two interfaces: a transport that carries the loops ({@link
 * dev.wirespeed.loop.spi}) and a faster way to read whole files ({@link dev.wirespeed.io.spi}).
 * {@code dev.wirespeed.loop.internal} is exported to the native module alone and is not API.
 *
 * <p>No dependencies beyond {@code java.base}, but for two optional ones: the JDK's incubating Vector
 * API, used only where the JVM was started with it, and JFR, used only where a server or client is
 * asked for events.
 */
@SuppressWarnings("module") // dev.wirespeed.linux, a qualified export's target, is built after this module
module dev.wirespeed.core {
    // Optional: ByteCounts counts with vectors where the JVM was started with this module.
    requires static jdk.incubator.vector;
    // Optional: FrameServer emits JFR events where asked to (FrameServer.Builder.jfrEvents).
    requires static jdk.jfr;

    exports dev.wirespeed.io;
    exports dev.wirespeed.io.spi;
    exports dev.wirespeed.frame;
    exports dev.wirespeed.loop;
    exports dev.wirespeed.loop.spi;
    exports dev.wirespeed.tls;
    exports dev.wirespeed.shm;
    // Not API: how the native module's endpoints read and write the loop's buffers by address.
    exports dev.wirespeed.loop.internal to dev.wirespeed.linux;

    // ReadAll reads files through a platform module's provider where one is present and usable.
    uses dev.wirespeed.io.spi.FileReadProvider;
}
