print("switchyard")
