/**
 * wirespeed core: buffered channel reading and writing ({@link dev.wirespeed.io}) and the frame
 * format of the wire protocol ({@link dev.wirespeed.frame}). No dependencies beyond {@code java.base}.
 */
module dev.wirespeed.core {
    exports dev.wirespeed.io;
    exports dev.wirespeed.frame;
}
