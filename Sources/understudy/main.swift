print("understudy")
