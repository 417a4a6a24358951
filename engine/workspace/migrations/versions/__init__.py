"""One file per schema revision; 0001 is the base every later revision upgrades from."""
