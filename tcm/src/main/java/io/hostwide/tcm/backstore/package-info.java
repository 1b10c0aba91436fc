/**
 * The backstores under a device, implementations of {@link io.hostwide.tcm.spi.Backstore}: sparse RAM, file, null
 * (LIO's backends). They see the storage SPI only, never a command or a logical unit.
 */
package io.hostwide.tcm.backstore;
