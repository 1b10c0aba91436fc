/**
 * What the outside of the core implements or sees, and nothing of the core itself: the storage SPI
 * ({@link io.hostwide.tcm.spi.Backstore}), the transport SPI ({@link io.hostwide.tcm.spi.Fabric}), the one error
 * vocabulary ({@link io.hostwide.tcm.spi.SenseReason}) and the executor long operations run on
 * ({@link io.hostwide.tcm.spi.Background}). The bottom layer of the module: it depends on the SCSI spec facts only.
 */
package io.hostwide.tcm.spi;
