import Understudy
