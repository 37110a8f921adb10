// FlickInput: libevdev devices and evemu recordings → FlickCore.TouchFrame.
