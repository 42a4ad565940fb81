print("audiograph")
