/** Configuration objects: targets, target ports (portal groups), LUNs, ACLs, devices and their attributes. */
package io.hostwide.tcm.model;
