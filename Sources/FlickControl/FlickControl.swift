// FlickControl: the control protocol.
