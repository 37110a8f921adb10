print("scroll-demo: placeholder")
