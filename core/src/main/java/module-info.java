/**
 * wirespeed core: buffered channel reading and writing ({@link dev.wirespeed.io}), the frame format
 * of the wire protocol ({@link dev.wirespeed.frame}), and frames through shared memory ({@link
 * dev.wirespeed.shm}). No dependencies beyond {@code java.base},
 * but for the JDK's incubating Vector API, used only where the JVM was started with it.
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
